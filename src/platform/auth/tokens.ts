/**
 * API token text: `svc_<env>_<tokenId>_<secret>` (docs/api.md "Scopes").
 *
 * - `<tokenId>`: 16 lowercase base32 characters (80 random bits), a public handle safe to log.
 * - `<secret>`: 40 random base62 characters (≈238 bits) followed by a 6-character base62 CRC-32 of
 *   everything before it, so secret scanners (and r3 itself, before any database read) can tell a
 *   real token from a typo offline.
 * - Only SHA-256 of `<secret>` is stored; comparison is constant-time.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export type TokenEnv = 'live' | 'test';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 40;
const CHECKSUM_CHARS = 6;
const TOKEN = /^svc_(live|test)_([a-z2-7]{16})_([0-9A-Za-z]{46})$/;

export interface ParsedToken {
  env: TokenEnv;
  tokenId: string;
  secret: string;
}

export interface IssuedToken extends ParsedToken {
  /** The plaintext, shown once. */
  token: string;
  /** SHA-256 of the secret: all that is stored. */
  secretHash: Buffer;
  /** What is kept for display: `svc_test_<tokenId>`. */
  prefix: string;
}

/** Makes a new token for `env` (a fresh secret for `tokenId` when given one: tests forge wrong secrets). */
export function issueToken(env: TokenEnv, tokenId: string = randomString(BASE32, 16)): IssuedToken {
  const body = randomString(BASE62, RANDOM_CHARS);
  const secret = body + checksum(`svc_${env}_${tokenId}_${body}`);
  return {
    env,
    tokenId,
    secret,
    token: `svc_${env}_${tokenId}_${secret}`,
    secretHash: hashSecret(secret),
    prefix: `svc_${env}_${tokenId}`,
  };
}

/**
 * Parses token text. Returns null when the shape or the checksum is wrong (a typo, a truncated
 * paste or a made-up token), before any database read.
 */
export function parseToken(text: string): ParsedToken | null {
  const parsed = tokenShape(text);
  return parsed && checksumMatches(parsed) ? parsed : null;
}

/** The parts of token text of the right shape, its checksum not checked (`checksumMatches`); else null. */
export function tokenShape(text: string): ParsedToken | null {
  const match = TOKEN.exec(text);
  if (!match) return null;
  const [, env, tokenId, secret] = match as unknown as [string, TokenEnv, string, string];
  return { env, tokenId, secret };
}

/** Whether a token's last six characters are the checksum of the rest. */
export function checksumMatches({ env, tokenId, secret }: ParsedToken): boolean {
  const body = secret.slice(0, RANDOM_CHARS);
  return checksum(`svc_${env}_${tokenId}_${body}`) === secret.slice(RANDOM_CHARS);
}

/** SHA-256 of `secret`: every authenticated request's, in one call (no Hash object to build and feed). */
export function hashSecret(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

/** Constant-time check of a presented secret's hash (already computed) against a stored hash. */
export function hashMatches(presentedHash: Buffer, storedHash: Buffer): boolean {
  return presentedHash.length === storedHash.length && timingSafeEqual(presentedHash, storedHash);
}

function checksum(text: string): string {
  let value = crc32(text) >>> 0;
  let out = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** Unbiased random text over `alphabet` (rejection sampling of random bytes). */
function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}
