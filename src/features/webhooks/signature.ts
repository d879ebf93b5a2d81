/**
 * Webhook signatures, in two schemes on every delivery:
 * - r3's own: `X-Service-Signature: t=<unix-seconds>,v1=<hex>[,v1=<hex>]`;
 * - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
 *   `webhook-signature: v1,<base64>[ v1,<base64>]`, each HMAC-SHA256 over `<id>.<timestamp>.<raw body>`
 *   keyed with the secret's UTF-8 bytes, so the `standardwebhooks` package verifies it with
 *   `new Webhook(base64(secret))` (docs/api.md "Webhooks").
 *
 * Each `v1` is HMAC-SHA256 keyed with one secret over the bytes `<t>.<raw body>`, hex encoded. The key
 * is the secret string exactly as issued (UTF-8 bytes, `whsec_` prefix included). During the window
 * after a rotation a delivery carries two `v1` entries, new secret first.
 *
 * This file is the helper r3 ships for receivers: it imports only `node:crypto`, so it can be copied
 * into, or imported by, code that knows nothing else about r3.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Name of the header carrying the signature. */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/** Default clock tolerance for `t`, in seconds (docs/api.md "Webhooks"). */
export const DEFAULT_SIGNATURE_TOLERANCE_SEC = 300;

/** Why {@link verifySignature} refused a delivery. */
export type SignatureFailure =
  | 'missing_timestamp'
  | 'missing_signature'
  | 'malformed'
  | 'timestamp_out_of_tolerance'
  | 'no_match';

/** Result of {@link verifySignature}. */
export type VerifyResult = { ok: true } | { ok: false; reason: SignatureFailure };

/** Options of {@link verifySignature}. */
export interface VerifyOptions {
  /** Largest allowed distance between `t` and `now`, in either direction. Default 300. */
  toleranceSec?: number;
  /** Current time in Unix seconds; defaults to the system clock. */
  now?: number;
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,15}$/;

/** HMAC-SHA256 of `<t>.<rawBody>` keyed with `secret`, as raw bytes. */
function hmac(rawBody: string | Buffer, secret: string, t: number): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
}

/**
 * Builds the value of the `X-Service-Signature` header: `t=<t>,v1=<hex>` with one `v1` per secret,
 * in the order given (after a rotation: new secret first, then the old one).
 *
 * `rawBody` must be exactly the bytes sent; a string is signed as UTF-8.
 * Throws when `secrets` is empty or `t` is not a non-negative integer.
 */
export function signPayload(rawBody: string | Buffer, secrets: readonly string[], t: number): string {
  if (!Number.isSafeInteger(t) || t < 0) throw new RangeError(`signature timestamp must be unix seconds`);
  if (secrets.length === 0) throw new RangeError('at least one signing secret is required');
  const parts = [`t=${t}`];
  for (const secret of secrets) {
    if (secret.length === 0) throw new RangeError('a signing secret must not be empty');
    parts.push(`v1=${hmac(rawBody, secret, t).toString('hex')}`);
  }
  return parts.join(',');
}

/** Names of the Standard Webhooks headers. */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/**
 * The Standard Webhooks headers of one delivery attempt: `webhook-id` (`msgId`, the delivery id,
 * the same on every attempt so receivers can dedupe), `webhook-timestamp` (`t`) and
 * `webhook-signature` with one `v1,<base64>` entry per secret, space-separated, in the order given.
 * Signed here with node:crypto rather than the `standardwebhooks` package: the HMAC is one call, and
 * this file stays importable by receivers with nothing but Node.
 */
export function standardWebhookHeaders(
  rawBody: string | Buffer,
  secrets: readonly string[],
  msgId: string,
  t: number,
): Record<string, string> {
  if (!Number.isSafeInteger(t) || t < 0) throw new RangeError(`signature timestamp must be unix seconds`);
  if (secrets.length === 0) throw new RangeError('at least one signing secret is required');
  const signatures = secrets.map((secret) => {
    if (secret.length === 0) throw new RangeError('a signing secret must not be empty');
    const mac = createHmac('sha256', secret).update(`${msgId}.${t}.`).update(rawBody).digest('base64');
    return `v1,${mac}`;
  });
  return {
    [STANDARD_WEBHOOK_HEADERS.id]: msgId,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(t),
    [STANDARD_WEBHOOK_HEADERS.signature]: signatures.join(' '),
  };
}

type ParsedHeader = { ok: true; t: number | undefined; v1: Buffer[] } | { ok: false };

/**
 * Splits the header into its `key=value` entries. Entry order and spaces around entries do not
 * matter; unknown schemes (`v0`, future `v2`) are skipped. A repeated `t` is malformed: two
 * timestamps would let the one checked differ from the one signed.
 */
function parseHeader(header: string): ParsedHeader {
  let t: number | undefined;
  const v1: Buffer[] = [];
  for (const rawPart of header.split(',')) {
    const part = rawPart.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return { ok: false };
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined || !UNIX_SECONDS.test(value)) return { ok: false };
      t = Number(value);
    } else if (key === 'v1') {
      if (!SHA256_HEX.test(value)) return { ok: false };
      v1.push(Buffer.from(value, 'hex'));
    }
  }
  return { ok: true, t, v1 };
}

/**
 * Verifies an `X-Service-Signature` header against the raw request body and one secret.
 *
 * Refuses a missing header or missing `v1` (`missing_signature`), a missing `t`
 * (`missing_timestamp`), an unparsable header (`malformed`), a `t` further than `toleranceSec` from
 * `now` in either direction (`timestamp_out_of_tolerance`), and a header none of whose `v1` entries
 * is the HMAC of this body under this secret (`no_match`). Every `v1` is compared in constant time,
 * and all of them are compared even after a match.
 *
 * Pass the body bytes as received, before any JSON parsing.
 */
export function verifySignature(
  rawBody: string | Buffer,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): VerifyResult {
  const toleranceSec = options.toleranceSec ?? DEFAULT_SIGNATURE_TOLERANCE_SEC;
  if (!(toleranceSec >= 0)) throw new RangeError('toleranceSec must be a non-negative number');
  if (header === null || header === undefined || header.trim() === '') {
    return { ok: false, reason: 'missing_signature' };
  }
  const parsed = parseHeader(header);
  if (!parsed.ok) return { ok: false, reason: 'malformed' };
  if (parsed.t === undefined) return { ok: false, reason: 'missing_timestamp' };
  if (parsed.v1.length === 0) return { ok: false, reason: 'missing_signature' };

  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.t) > toleranceSec) return { ok: false, reason: 'timestamp_out_of_tolerance' };

  const expected = hmac(rawBody, secret, parsed.t);
  let matched = false;
  for (const candidate of parsed.v1) {
    // Both buffers are 32 bytes (the header parser only accepts 64 hex digits); the comparison runs
    // first so that a match does not skip the remaining entries.
    matched = timingSafeEqual(candidate, expected) || matched;
  }
  return matched ? { ok: true } : { ok: false, reason: 'no_match' };
}

/** A new signing secret: `whsec_` followed by 32 random bytes in base64url (43 characters). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
