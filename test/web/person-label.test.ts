/** How people read on the pages (web/src/people/person-label.ts). */
import { describe, expect, it } from 'vitest';
import { personLabel } from '../../web/src/people/person-label.js';

describe('personLabel', () => {
  it("names a token by its user and name, a session by its user, r3's own in words", () => {
    expect(
      personLabel('token:abc', { actor: 'token:abc', kind: 'token', userId: 'ann', tokenName: 'laptop' }),
    ).toBe('ann (laptop)');
    expect(personLabel('user:bob', { actor: 'user:bob', kind: 'user', userId: 'bob', tokenName: null })).toBe(
      'bob',
    );
    expect(personLabel('mcp', { actor: 'mcp', kind: 'system', userId: null, tokenName: null })).toBe(
      'an MCP client',
    );
  });

  it('shows the attribution until it is resolved, and says when a token is unknown', () => {
    expect(personLabel('token:abc', undefined)).toBe('token:abc');
    expect(
      personLabel('token:abc', { actor: 'token:abc', kind: 'token', userId: null, tokenName: null }),
    ).toBe('an unknown token');
    expect(personLabel('worker', undefined)).toBe('r3');
  });
});
