import { describe, expect, it } from 'vitest';
import { Router } from '../../../src/platform/http/router.js';
import { parseQuery } from '../../../src/platform/http/server.js';

describe('router', () => {
  const router = new Router<string>();
  router.add('GET', '/api/v1/objects/types', 'types');
  router.add('GET', '/api/v1/objects/types/:slug', 'type');
  router.add('GET', '/api/v1/objects/:id', 'object');
  router.add('PATCH', '/api/v1/objects/:id', 'patch-object');
  router.add('POST', '/api/v1/objects/:slug/instances', 'ingest');
  router.add('GET', '/api/v1/runs/:id/stream', 'stream');

  it('prefers a static segment over a parameter at the same depth', () => {
    expect(router.find('GET', '/api/v1/objects/types')).toEqual({
      kind: 'match',
      match: { route: 'types', params: {} },
    });
    expect(router.find('GET', '/api/v1/objects/42')).toEqual({
      kind: 'match',
      match: { route: 'object', params: { id: '42' } },
    });
  });

  it('backtracks from a static branch that does not lead to a route', () => {
    expect(router.find('POST', '/api/v1/objects/types/instances')).toEqual({
      kind: 'match',
      match: { route: 'ingest', params: { slug: 'types' } },
    });
  });

  it('decodes percent-encoded params and ignores one trailing slash', () => {
    expect(router.find('GET', '/api/v1/objects/types/a%20b/')).toEqual({
      kind: 'match',
      match: { route: 'type', params: { slug: 'a b' } },
    });
  });

  it('finds nothing for a known path under a method it does not accept', () => {
    expect(router.find('DELETE', '/api/v1/objects/7')).toEqual({ kind: 'none' });
  });

  it('finds nothing for unknown paths and empty params', () => {
    expect(router.find('GET', '/api/v1/nope').kind).toBe('none');
    expect(router.find('GET', '/api/v1/runs//stream').kind).toBe('none');
  });

  it('names params per route where routes share a position', () => {
    expect(router.find('POST', '/api/v1/objects/lead/instances')).toEqual({
      kind: 'match',
      match: { route: 'ingest', params: { slug: 'lead' } },
    });
    expect(router.find('PATCH', '/api/v1/objects/9')).toEqual({
      kind: 'match',
      match: { route: 'patch-object', params: { id: '9' } },
    });
  });

  it('refuses duplicate registrations', () => {
    expect(() => router.add('GET', '/api/v1/objects/:other', 'again')).toThrow(/twice/);
  });
});

describe('query parsing', () => {
  it('keeps single values as strings and repeated keys as arrays', () => {
    expect(parseQuery('a=1&b=x%20y&a=2&c=')).toEqual({ a: ['1', '2'], b: 'x y', c: '' });
    expect(parseQuery('')).toEqual({});
  });
});
