import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  SIGNATURE_HEADER,
  signPayload,
  standardWebhookHeaders,
  verifySignature,
} from '../../../src/features/webhooks/signature.js';

/**
 * A receiver written from the spec alone, sharing no code with src/: split the header, recompute
 * HMAC-SHA256(secret, `<t>.<body>`) and compare each v1 in constant time.
 */
function independentVerify(body: string, header: string, secret: string, now: number): boolean {
  const entries = header.split(',').map((p) => p.trim().split('='));
  const t = entries.find(([k]) => k === 't')?.[1];
  const v1s = entries.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (t === undefined || v1s.length === 0 || Math.abs(now - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest();
  return v1s.some((v) => {
    const got = Buffer.from(v, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

const body = JSON.stringify({ event: 'run.completed', deliveryId: 'whd_x', data: { note: 'café ✓' } });
const now = 1_790_000_000;
const secretA = 'whsec_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const secretB = 'whsec_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('signPayload', () => {
  it('produces a header an independent verifier accepts', () => {
    const header = signPayload(body, [secretA], now);
    expect(header).toMatch(/^t=1790000000,v1=[0-9a-f]{64}$/);
    expect(independentVerify(body, header, secretA, now)).toBe(true);
    expect(independentVerify(body, header, secretB, now)).toBe(false);
  });

  it('signs a Buffer body the same as its UTF-8 string', () => {
    expect(signPayload(Buffer.from(body, 'utf8'), [secretA], now)).toBe(signPayload(body, [secretA], now));
  });

  it('dual-signs with the new secret first, and either secret verifies', () => {
    const header = signPayload(body, [secretB, secretA], now);
    const v1s = header.split(',').filter((p) => p.startsWith('v1='));
    expect(v1s).toEqual([
      signPayload(body, [secretB], now).split(',')[1],
      signPayload(body, [secretA], now).split(',')[1],
    ]);
    expect(independentVerify(body, header, secretA, now)).toBe(true);
    expect(independentVerify(body, header, secretB, now)).toBe(true);
    expect(verifySignature(body, header, secretA, { now })).toEqual({ ok: true });
    expect(verifySignature(body, header, secretB, { now })).toEqual({ ok: true });
  });

  it('refuses no secrets, empty secrets and non-integer timestamps', () => {
    expect(() => signPayload(body, [], now)).toThrow(RangeError);
    expect(() => signPayload(body, [''], now)).toThrow(RangeError);
    expect(() => signPayload(body, [secretA], 1.5)).toThrow(RangeError);
    expect(() => signPayload(body, [secretA], -1)).toThrow(RangeError);
  });

  it('names the header as the spec does', () => {
    expect(SIGNATURE_HEADER).toBe('X-Service-Signature');
  });
});

describe('verifySignature', () => {
  /** A header built by hand, like a third-party sender would. */
  const handSigned = (secret: string, t: number, payload = body): string =>
    `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex')}`;

  it('accepts a hand-built valid header', () => {
    expect(verifySignature(body, handSigned(secretA, now), secretA, { now })).toEqual({ ok: true });
  });

  it('accepts any entry order, spaces, unknown schemes and upper-case hex', () => {
    const v1 = handSigned(secretA, now).split(',')[1] ?? '';
    const header = ` v0=deadbeef , ${v1.toUpperCase().replace('V1=', 'v1=')} ,t=${now}, v2=abc `;
    expect(verifySignature(body, header, secretA, { now })).toEqual({ ok: true });
  });

  it('checks every v1: a match in second place counts', () => {
    const wrong = handSigned(secretB, now).split(',')[1];
    const right = handSigned(secretA, now).split(',')[1];
    expect(verifySignature(body, `t=${now},${wrong},${right}`, secretA, { now })).toEqual({ ok: true });
  });

  it('refuses a tampered body', () => {
    const header = signPayload(body, [secretA], now);
    expect(verifySignature(`${body} `, header, secretA, { now })).toEqual({ ok: false, reason: 'no_match' });
    expect(independentVerify(`${body} `, header, secretA, now)).toBe(false);
  });

  it('refuses the wrong secret', () => {
    const header = signPayload(body, [secretA], now);
    expect(verifySignature(body, header, secretB, { now })).toEqual({ ok: false, reason: 'no_match' });
  });

  it('refuses a timestamp swapped into a valid signature', () => {
    const v1 = signPayload(body, [secretA], now).split(',')[1];
    expect(verifySignature(body, `t=${now + 1},${v1}`, secretA, { now })).toEqual({
      ok: false,
      reason: 'no_match',
    });
  });

  it('refuses a timestamp older or newer than the tolerance, and accepts one at its edge', () => {
    const old = signPayload(body, [secretA], now - 301);
    const future = signPayload(body, [secretA], now + 301);
    const edge = signPayload(body, [secretA], now - 300);
    expect(verifySignature(body, old, secretA, { now })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifySignature(body, future, secretA, { now })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifySignature(body, edge, secretA, { now })).toEqual({ ok: true });
    expect(verifySignature(body, old, secretA, { now, toleranceSec: 600 })).toEqual({ ok: true });
  });

  it('uses the system clock when now is not given', () => {
    const header = signPayload(body, [secretA], Math.floor(Date.now() / 1000));
    expect(verifySignature(body, header, secretA)).toEqual({ ok: true });
    expect(verifySignature(body, signPayload(body, [secretA], now - 86_400 * 365), secretA).ok).toBe(false);
  });

  it('refuses a missing timestamp', () => {
    const v1 = signPayload(body, [secretA], now).split(',')[1] ?? '';
    expect(verifySignature(body, v1, secretA, { now })).toEqual({ ok: false, reason: 'missing_timestamp' });
  });

  it('refuses a missing signature, including an absent header', () => {
    expect(verifySignature(body, `t=${now}`, secretA, { now })).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
    expect(verifySignature(body, `t=${now},v0=abcd`, secretA, { now })).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
    expect(verifySignature(body, undefined, secretA, { now })).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
    expect(verifySignature(body, '  ', secretA, { now })).toEqual({ ok: false, reason: 'missing_signature' });
  });

  it.each([
    ['garbage', 'not a signature header'],
    ['non-numeric t', 't=yesterday,v1=' + 'a'.repeat(64)],
    ['two timestamps', `t=${now},t=${now},v1=${'a'.repeat(64)}`],
    ['short v1', `t=${now},v1=abc`],
    ['non-hex v1', `t=${now},v1=${'z'.repeat(64)}`],
    ['empty key', `t=${now},=x`],
  ])('refuses a malformed header (%s)', (_name, header) => {
    expect(verifySignature(body, header, secretA, { now })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('rejects a nonsensical tolerance', () => {
    expect(() => verifySignature(body, `t=${now}`, secretA, { now, toleranceSec: Number.NaN })).toThrow(
      RangeError,
    );
  });
});

describe('standardWebhookHeaders', () => {
  /** The `standardwebhooks` package's verifier for an r3 secret, as decisions §15 tells receivers. */
  const receiverFor = (secret: string) => new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
  const realNow = () => Math.floor(Date.now() / 1000);

  it('gives webhook-id, webhook-timestamp and a v1 signature the standardwebhooks package verifies', () => {
    const t = realNow();
    const headers = standardWebhookHeaders(body, [secretA], 'whd_abc', t);
    expect(headers).toEqual({
      'webhook-id': 'whd_abc',
      'webhook-timestamp': String(t),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(receiverFor(secretA).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('is refused by the package for a tampered body, another id, another secret or an old timestamp', () => {
    const t = realNow();
    const headers = standardWebhookHeaders(body, [secretA], 'whd_abc', t);
    expect(() => receiverFor(secretA).verify(body.replace('café', 'cafe'), headers)).toThrow(/No matching/);
    expect(() => receiverFor(secretA).verify(body, { ...headers, 'webhook-id': 'whd_abd' })).toThrow();
    expect(() => receiverFor(secretB).verify(body, headers)).toThrow(/No matching/);
    const old = standardWebhookHeaders(body, [secretA], 'whd_abc', t - 301);
    expect(() => receiverFor(secretA).verify(body, old)).toThrow(/too old/);
  });

  it('signs with every secret, space-separated in the order given, and either one verifies', () => {
    const t = realNow();
    const headers = standardWebhookHeaders(Buffer.from(body), [secretB, secretA], 'whd_x', t);
    const entries = headers['webhook-signature']?.split(' ') ?? [];
    expect(entries).toHaveLength(2);
    expect(entries[0]).toBe(receiverFor(secretB).sign('whd_x', new Date(t * 1000), body));
    expect(entries[1]).toBe(receiverFor(secretA).sign('whd_x', new Date(t * 1000), body));
    expect(receiverFor(secretA).verify(body, headers)).toEqual(JSON.parse(body));
    expect(receiverFor(secretB).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('refuses no secrets, empty secrets and non-integer timestamps', () => {
    expect(() => standardWebhookHeaders(body, [], 'whd_x', now)).toThrow(RangeError);
    expect(() => standardWebhookHeaders(body, [''], 'whd_x', now)).toThrow(RangeError);
    expect(() => standardWebhookHeaders(body, [secretA], 'whd_x', 1.5)).toThrow(RangeError);
  });
});

describe('generateWebhookSecret', () => {
  it('is whsec_ plus 32 random bytes in base64url', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(6), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});
