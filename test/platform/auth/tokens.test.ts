import { describe, expect, it } from 'vitest';
import {
  canApprove,
  type Principal,
  parseScopes,
  type Role,
  type Scope,
} from '../../../src/platform/auth/principal.js';
import { hashMatches, hashSecret, issueToken, parseToken } from '../../../src/platform/auth/tokens.js';

describe('token text', () => {
  it('has the docs/api.md "Scopes" shape: svc_<env>_<16 base32>_<46 base62>', () => {
    const issued = issueToken('test');
    expect(issued.token).toMatch(/^svc_test_[a-z2-7]{16}_[0-9A-Za-z]{46}$/);
    expect(issued.prefix).toBe(`svc_test_${issued.tokenId}`);
    expect(issueToken('live').token.startsWith('svc_live_')).toBe(true);
  });

  it('round-trips through parseToken and stores only the SHA-256 of the secret', () => {
    const issued = issueToken('live');
    expect(parseToken(issued.token)).toEqual({ env: 'live', tokenId: issued.tokenId, secret: issued.secret });
    expect(issued.secretHash.equals(hashSecret(issued.secret))).toBe(true);
    expect(issued.secretHash.length).toBe(32);
  });

  it('rejects a token whose checksum does not match (a typo) before any lookup', () => {
    const issued = issueToken('test');
    const last = issued.token.at(-1) === 'a' ? 'b' : 'a';
    expect(parseToken(issued.token.slice(0, -1) + last)).toBeNull();
    const flipped = issued.token.replace(/_([0-9A-Za-z])/g, (m, c) => (c === 'Z' ? '_Y' : m));
    if (flipped !== issued.token) expect(parseToken(flipped)).toBeNull();
  });

  it('rejects other shapes', () => {
    for (const text of [
      '',
      'svc_test_',
      'svc_prod_abcdefghijklmnop_x',
      'Bearer x',
      'svc_test_ABCDEFGHIJKLMNOP_' + 'a'.repeat(46),
    ]) {
      expect(parseToken(text)).toBeNull();
    }
  });

  it('compares secrets against the stored hash', () => {
    const issued = issueToken('test');
    expect(hashMatches(hashSecret(issued.secret), issued.secretHash)).toBe(true);
    expect(hashMatches(hashSecret(issueToken('test').secret), issued.secretHash)).toBe(false);
  });

  it('draws ids and secrets with enough entropy to never repeat', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => issueToken('test').tokenId));
    expect(ids.size).toBe(2000);
  });
});

describe('scopes and the approve capability', () => {
  const principal = (role: Role, scopes: Scope[]): Principal => ({
    orgId: 1,
    orgSlug: 'o',
    userId: 'u',
    role,
    scopes: new Set(scopes),
    tokenId: 'x',
    actor: 'token:x',
    rateLimit: { perMinute: null, burst: null },
  });

  it('needs an approving role and run:approve', () => {
    for (const role of ['owner', 'pm', 'client_reviewer'] as const) {
      expect(canApprove(principal(role, ['run:approve']))).toBe(true);
      expect(canApprove(principal(role, ['read:all', 'run:invoke']))).toBe(false);
    }
    expect(canApprove(principal('specialist', ['run:approve', 'read:all']))).toBe(false);
  });

  it('parses comma lists, dedupes and reports unknown scopes', () => {
    expect(parseScopes(' read:all, run:invoke,read:all ,')).toEqual({
      scopes: ['read:all', 'run:invoke'],
      unknown: [],
    });
    expect(parseScopes('read:all,admin')).toEqual({ scopes: ['read:all'], unknown: ['admin'] });
  });
});
