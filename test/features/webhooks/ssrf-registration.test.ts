/**
 * The SSRF guard on a deployment that does not allow private targets (the default): refused targets
 * are 400 at registration and on PATCH, and the guard runs again before every attempt, so a webhook
 * whose target turned internal after registration is never connected to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createObjectType, ingest, watchDispatcher } from '../../helpers/webhooks.js';

let t: TestApp;
let token: string;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  token = (await t.token({ scopes: ALL_SCOPES })).token;
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const register = (url: string) =>
  t.request('POST', '/api/v1/webhooks', {
    token,
    body: { url, events: ['object.created'], secret: 'whsec_ssrf_0123456789' },
  });

// A public address literal: accepted without any DNS lookup.
const PUBLIC = 'https://93.184.215.14/hooks';

describe('registration', () => {
  it.each([
    ['http://93.184.215.14/hooks', 'https_required'],
    ['https://127.0.0.1/hooks', 'blocked_address'],
    ['https://[::1]/hooks', 'blocked_address'],
    ['https://10.1.2.3/hooks', 'blocked_address'],
    ['https://192.168.1.10:8443/hooks', 'blocked_address'],
    ['https://169.254.169.254/latest/meta-data', 'blocked_address'],
    ['https://[::ffff:127.0.0.1]/hooks', 'blocked_address'],
    ['https://localhost/hooks', 'blocked_hostname'],
    ['https://metadata.google.internal/x', 'blocked_hostname'],
    ['https://user:pass@93.184.215.14/hooks', 'userinfo_not_allowed'],
    ['ftp://93.184.215.14/hooks', 'unsupported_scheme'],
    ['not a url', 'invalid_url'],
  ])('refuses %s (%s) with 400 on body.url', async (url, reason) => {
    const res = await register(url);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues[0]).toMatchObject({ field: 'body.url', reason });
    // The refusal names the range, never what a name resolved to.
    expect(res.body.error.message).toContain(reason);
  });

  it('accepts a public https target, and refuses a private one on PATCH', async () => {
    const res = await register(PUBLIC);
    expect(res.status, res.text).toBe(201);
    const patch = await t.request('PATCH', `/api/v1/webhooks/${res.body.id}`, {
      token,
      body: { url: 'https://10.0.0.1/x' },
    });
    expect(patch.status).toBe(400);
    expect(patch.body.error.details.issues[0]).toMatchObject({
      field: 'body.url',
      reason: 'blocked_address',
    });
    const unchanged = await t.request('GET', `/api/v1/webhooks/${res.body.id}`, { token });
    expect(unchanged.body.url).toBe(PUBLIC);
    await t.request('DELETE', `/api/v1/webhooks/${res.body.id}`, { token });
  });
});

describe('before every attempt', () => {
  it('refuses a target that became internal, without connecting to it', async () => {
    await createObjectType(t, token);
    const res = await register(PUBLIC);
    const id = res.body.id as number;
    // As if the name now resolved to a loopback address: stored behind the API's back.
    await t.app.db.sql.query('update webhooks set url = $2 where id = $1', [id, `${receiver.url}/internal`]);
    await ingest(t, token, watchDispatcher(t));
    await t.app.jobs.drain();
    const list = await t.request('GET', `/api/v1/webhooks/${id}/deliveries`, { token });
    const [delivery] = list.body.deliveries;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, responseStatus: null });
    const detail = await t.request('GET', `/api/v1/webhooks/${id}/deliveries/${delivery.deliveryId}`, {
      token,
    });
    expect(detail.body.lastError).toBe('target_refused:https_required');
    expect(receiver.received.items).toHaveLength(0);

    await t.app.db.sql.query('update webhooks set url = $2 where id = $1', [
      id,
      'https://127.0.0.1:1/internal',
    ]);
    t.clock.advance(1_000);
    await t.app.timers.runDue();
    await t.app.jobs.drain();
    const again = await t.request('GET', `/api/v1/webhooks/${id}/deliveries/${delivery.deliveryId}`, {
      token,
    });
    expect(again.body.attempts).toBe(2);
    expect(again.body.lastError).toBe('target_refused:blocked_address');
    expect(receiver.received.items).toHaveLength(0);
  });
});
