/**
 * Mission webhooks through a real receiver: `mission.started`, `mission.awaiting_review`,
 * `mission.completed` and `mission.cancelled`, each with `data: {missionRunId, mission, status}`;
 * the webhook's run filter does not hold them back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { type Callers, callers } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createMission, createTeam, waitForMissionRun } from '../../helpers/missions.js';

let t: TestApp;
let c: Callers;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestApp({ R3_WEBHOOK_ALLOW_PRIVATE: 'true' });
  c = await callers(t, 'mission-hooks');
  await createTeam(t, c.writer, ['lead', 'writer']);
  await createMission(t, c.writer, 'launch', ['lead', 'writer']);
  const hook = await t.request('POST', '/api/v1/webhooks', {
    token: c.writer,
    body: {
      url: `${receiver.url}/hook`,
      events: [
        'mission.started',
        'mission.awaiting_review',
        'mission.completed',
        'mission.failed',
        'mission.cancelled',
      ],
      filter: { skillSlug: 'draft' },
      secret: 'whsec_mission_hook_secret_0123456789',
    },
  });
  expect(hook.status, hook.text).toBe(201);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const about = (id: number) => (items: readonly { json: any }[]) =>
  items.filter((item) => item.json?.data?.missionRunId === id).map((item) => item.json);

describe('mission webhooks', () => {
  it('started, awaiting_review and completed, with {missionRunId, mission, status}', async () => {
    const started = await t.request('POST', '/api/v1/mission-runs', {
      token: c.invoker,
      body: { missionSlug: 'launch', input: { product: 'x' } },
    });
    const id = started.body.missionRunId as number;
    await waitForMissionRun(t, c.reader, id, ['awaiting_review']);
    await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'mission', id, action: 'approve' },
    });
    const got = await receiver.received.until(
      (items) => about(id)(items).length >= 3,
      'three mission webhooks',
      15_000,
    );
    const events = about(id)(got);
    expect(events.map((e) => e.event).sort()).toEqual([
      'mission.awaiting_review',
      'mission.completed',
      'mission.started',
    ]);
    expect(events.find((e) => e.event === 'mission.started').data).toEqual({
      missionRunId: id,
      mission: 'launch',
      status: 'planning',
    });
    expect(events.find((e) => e.event === 'mission.awaiting_review').data.status).toBe('awaiting_review');
    expect(events.find((e) => e.event === 'mission.completed').data.status).toBe('completed');
  });

  it('cancelled (ad hoc: mission null)', async () => {
    const started = await t.request('POST', '/api/v1/mission-runs', {
      token: c.invoker,
      body: { team: ['writer'], goal: 'Cancel me' },
    });
    const id = started.body.missionRunId as number;
    await waitForMissionRun(t, c.reader, id, ['awaiting_review']);
    await t.request('POST', `/api/v1/mission-runs/${id}/cancel`, { token: c.invoker, body: {} });
    const got = await receiver.received.until(
      (items) => about(id)(items).some((e) => e.event === 'mission.cancelled'),
      'mission.cancelled',
      15_000,
    );
    expect(about(id)(got).find((e) => e.event === 'mission.cancelled').data).toEqual({
      missionRunId: id,
      mission: null,
      status: 'cancelled',
    });
  });
});
