/**
 * Webhook signing secrets at rest: AES-256-GCM under a key derived from the deployment's master
 * secret, stored as `v1:<iv>:<tag>:<ciphertext>` (base64url parts). The `v1` prefix leaves room to
 * change the algorithm or rotate the master key without guessing what an old row holds.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]*$/;
const MIN_MATERIAL_CHARS = 16;
const HKDF_SALT = 'r3/secret-box';

/** Thrown when a sealed secret cannot be opened: malformed, wrong key, or tampered with. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new SecretBoxError(`secret-box key must be ${KEY_BYTES} bytes`);
}

/**
 * Encrypts `plain` with AES-256-GCM under `key` (32 bytes, see {@link deriveKey}). A fresh random IV
 * per call, so sealing the same secret twice gives different strings.
 *
 * `context` is bound as additional authenticated data (for example `webhook:<orgId>:<id>`): a sealed
 * value copied to another row then fails to open there. Pass the same context to {@link openSecret}.
 */
export function sealSecret(plain: string, key: Buffer, context = ''): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [FORMAT_VERSION, iv, tag, ct]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join(':');
}

/**
 * Decrypts a value made by {@link sealSecret}. Throws {@link SecretBoxError} when the format is wrong,
 * the key or context differs, or any part was altered.
 */
export function openSecret(sealed: string, key: Buffer, context = ''): string {
  assertKey(key);
  const parts = sealed.split(':');
  if (parts.length !== 4 || parts[0] !== FORMAT_VERSION) {
    throw new SecretBoxError('sealed secret has an unknown format');
  }
  const [, ivText, tagText, ctText] = parts as [string, string, string, string];
  if (![ivText, tagText, ctText].every((p) => B64URL.test(p))) {
    throw new SecretBoxError('sealed secret has an unknown format');
  }
  const iv = Buffer.from(ivText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  // A short tag would make forgery cheaper; only the full 16 bytes are accepted.
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretBoxError('sealed secret has an unknown format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ctText, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretBoxError('sealed secret failed authentication');
  }
}

/**
 * Derives the 32-byte secret-box key from the configured master secret with HKDF-SHA256.
 * `purpose` separates keys derived from the same master secret for different uses.
 * Throws when the material is shorter than 16 characters.
 */
export function deriveKey(material: string, purpose = 'webhook-secrets'): Buffer {
  if (material.length < MIN_MATERIAL_CHARS) {
    throw new SecretBoxError(`master secret must be at least ${MIN_MATERIAL_CHARS} characters`);
  }
  return Buffer.from(hkdfSync('sha256', material, HKDF_SALT, `r3 ${purpose} v1`, KEY_BYTES));
}
