import { describe, expect, it } from 'vitest';
import {
  deriveKey,
  openSecret,
  SecretBoxError,
  sealSecret,
} from '../../../src/platform/secrets/secret-box.js';

const key = deriveKey('a-master-secret-of-enough-length');
const secret = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';

/** Re-encodes one base64url part of a sealed value after flipping a bit in its bytes. */
function flipBit(sealed: string, part: 1 | 2 | 3): string {
  const parts = sealed.split(':');
  const bytes = Buffer.from(parts[part] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[part] = bytes.toString('base64url');
  return parts.join(':');
}

describe('secret box', () => {
  it('round-trips, with a fresh IV each time', () => {
    const a = sealSecret(secret, key);
    const b = sealSecret(secret, key);
    expect(a).toMatch(/^v1:[\w-]{16}:[\w-]{22}:[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret);
    expect(openSecret(a, key)).toBe(secret);
    expect(openSecret(b, key)).toBe(secret);
    expect(openSecret(sealSecret('', key), key)).toBe('');
  });

  it.each([1, 2, 3] as const)('throws when part %i (iv, tag, ciphertext) is tampered with', (part) => {
    const sealed = sealSecret(secret, key);
    expect(() => openSecret(flipBit(sealed, part), key)).toThrow(SecretBoxError);
  });

  it('throws under another key', () => {
    const sealed = sealSecret(secret, key);
    expect(() => openSecret(sealed, deriveKey('another-master-secret-entirely'))).toThrow(SecretBoxError);
  });

  it('binds the context: a value copied to another row does not open', () => {
    const sealed = sealSecret(secret, key, 'webhook:org1:1');
    expect(openSecret(sealed, key, 'webhook:org1:1')).toBe(secret);
    expect(() => openSecret(sealed, key, 'webhook:org2:1')).toThrow(SecretBoxError);
    expect(() => openSecret(sealed, key)).toThrow(SecretBoxError);
  });

  it.each([
    ['unknown version', (s: string) => s.replace(/^v1:/, 'v2:')],
    ['missing part', (s: string) => s.split(':').slice(0, 3).join(':')],
    [
      'truncated tag',
      (s: string) =>
        s
          .split(':')
          .map((p, i) => (i === 2 ? p.slice(0, 10) : p))
          .join(':'),
    ],
    ['bad characters', (s: string) => `${s}!`],
  ])('throws on a malformed value (%s)', (_name, mangle) => {
    expect(() => openSecret(mangle(sealSecret(secret, key)), key)).toThrow(SecretBoxError);
  });

  it('derives 32-byte keys that depend on material and purpose', () => {
    expect(key).toHaveLength(32);
    expect(deriveKey('a-master-secret-of-enough-length').equals(key)).toBe(true);
    expect(deriveKey('a-master-secret-of-enough-length', 'other').equals(key)).toBe(false);
    expect(() => deriveKey('short')).toThrow(SecretBoxError);
    expect(() => sealSecret(secret, Buffer.alloc(16))).toThrow(SecretBoxError);
  });
});
