/**
 * `mission.failed` end to end: a mission run whose planner answers an invalid plan twice fails
 * PLAN_INVALID, and a real local receiver gets the webhook — the delivery body of the spec
 * (`{event, deliveryId, createdAt, data}`) with docs/api.md "Missions"' `data: {missionRunId, mission,
 * status}`, signed as docs/api.md "Delivery" says (checked here with a verifier written from the spec, sharing
 * no code with src/).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatBody, type FakeOpenAI, startFakeOpenAI } from '../../../fakes/openai-server.js';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { type Callers, callers } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createMission, createTeam, waitForMissionRun } from '../../helpers/missions.js';
import { waitFor } from '../../helpers/wait.js';

const SECRET = 'whsec_mission_failed_secret_0123456789';

let t: TestApp;
let fake: FakeOpenAI;
let c: Callers;
let receiver: Receiver;
let webhookId: string;

const isPlanner = (body: ChatBody) =>
  body.messages.some((m) => m.role === 'user' && m.content?.includes('You are the planner of a mission'));

/** HMAC-SHA256(secret, `<t>.<raw body>`) against each `v1`, in constant time; `t` within 5 minutes. */
function verifiedBySpec(raw: string, header: string | undefined): boolean {
  if (!header) return false;
  const entries = header.split(',').map((part) => part.trim().split('='));
  const stamp = entries.find(([key]) => key === 't')?.[1];
  const signatures = entries.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
  if (stamp === undefined || signatures.length === 0) return false;
  if (Math.abs(Date.now() / 1000 - Number(stamp)) > 300) return false;
  const expected = createHmac('sha256', SECRET).update(`${stamp}.${raw}`, 'utf8').digest();
  return signatures.some((hex) => {
    const got = Buffer.from(hex, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

beforeAll(async () => {
  receiver = await startReceiver();
  // Every plan names an agent outside the team: invalid, and invalid again when sent back.
  fake = await startFakeOpenAI({
    chatContent: (body) =>
      isPlanner(body)
        ? JSON.stringify({
            tasks: [{ id: 'x', title: 'X', agent: 'stranger', instructions: 'Do x', dependsOn: [] }],
          })
        : 'done',
  });
  t = await startTestApp({
    R3_WEBHOOK_ALLOW_PRIVATE: 'true',
    R3_MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: fake.baseUrl,
    R3_MODEL: 'gpt-test',
  });
  c = await callers(t, 'mission-failed-hook');
  await createTeam(t, c.writer, ['lead']);
  await createMission(t, c.writer, 'broken', ['lead']);
  const hook = await t.request('POST', '/api/v1/webhooks', {
    token: c.writer,
    body: { url: `${receiver.url}/hook`, events: ['mission.started', 'mission.failed'], secret: SECRET },
  });
  expect(hook.status, hook.text).toBe(201);
  webhookId = hook.body.id as string;
});
afterAll(async () => {
  await t.close();
  await fake.close();
  await receiver.close();
});

describe('mission.failed', () => {
  it('is delivered, signed, with {missionRunId, mission, status} when the plan is invalid twice', async () => {
    const started = await t.request('POST', '/api/v1/mission-runs', {
      token: c.invoker,
      body: { missionSlug: 'broken', input: { product: 'Widget' } },
    });
    expect(started.status, started.text).toBe(202);
    const id = started.body.missionRunId as number;
    const run = await waitForMissionRun(t, c.reader, id, ['failed', 'awaiting_review']);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('PLAN_INVALID');

    const about = (items: readonly { json: any }[]) =>
      items.filter((item) => item.json?.data?.missionRunId === id).map((item) => item.json.event as string);
    const got = await receiver.received.until(
      (items) => about(items).length >= 2,
      'mission.started and mission.failed',
      15_000,
    );
    const failed = got.find(
      (item) => item.json?.event === 'mission.failed' && item.json.data?.missionRunId === id,
    );
    if (!failed) throw new Error('no mission.failed delivery');
    expect(failed.path).toBe('/hook');
    expect(failed.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(failed.json).sort()).toEqual(['createdAt', 'data', 'deliveryId', 'event']);
    expect(failed.json.deliveryId).toMatch(/^whd_/);
    expect(new Date(failed.json.createdAt).toISOString()).toBe(failed.json.createdAt);
    expect(failed.json.data).toEqual({ missionRunId: id, mission: 'broken', status: 'failed' });

    // The signature of docs/api.md "Delivery", over the raw body as it arrived; a changed body does not verify.
    const header = failed.headers['x-service-signature'] as string | undefined;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifiedBySpec(failed.raw, header)).toBe(true);
    expect(verifiedBySpec(failed.raw.replace('"failed"', '"completed"'), header)).toBe(false);

    // Started and failed, once each; the delivery is recorded as delivered. r3 records the receiver's
    // 2xx after the receiver has the request (which is all `got` waited for): wait for the record.
    expect(about(got).sort()).toEqual(['mission.failed', 'mission.started']);
    const recorded = async () => {
      const deliveries = await t.request('GET', `/api/v1/webhooks/${webhookId}/deliveries`, {
        token: c.writer,
      });
      expect(deliveries.status, deliveries.text).toBe(200);
      return deliveries.body.deliveries.find(
        (d: { deliveryId: string }) => d.deliveryId === failed.json.deliveryId,
      );
    };
    await waitFor(async () => (await recorded())?.status !== 'pending', 'the delivery recorded');
    expect(await recorded()).toMatchObject({ event: 'mission.failed', status: 'delivered' });
  });
});
