/**
 * Issue 36 #4: ending a browser session ends its open event streams — sign-out (`DELETE
 * /api/v1/session`) and `r3 session revoke` (another process) — as a revoked token's streams end,
 * while another session's streams go on. Run events and the review queue, for a sign-in link's session
 * and for a pasted token's (whose token stays valid: the session ended, not the token).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_REVALIDATE_MS } from '../../../src/platform/auth/stream-revocation.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { runCli } from '../../helpers/process.js';
import { createSkillRun, orgIdOf } from '../../helpers/runs.js';
import { openSse, type SseClient } from '../../helpers/sse.js';
import { withTimeout } from '../../helpers/wait.js';

let t: TestApp;
let runId: number;
const opened: SseClient[] = [];

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  await t.token({ scopes: ['read:all'] });
  // A run that stays running (no workers): its stream stays open until something ends it.
  runId = (await createSkillRun(t.app, await orgIdOf(t.app))).actor.row.id;
});
afterAll(async () => {
  for (const client of opened) client.close();
  await t?.close();
});

/** Generous: the signal ends them at once, the timer within STREAM_REVALIDATE_MS; a loaded machine is slower. */
const ENDS_WITHIN_MS = STREAM_REVALIDATE_MS + 4_000;

interface Session {
  cookie: string;
  csrf: string;
}

async function start(body: { link?: string; token?: string }): Promise<Session> {
  const res = await t.request('POST', '/api/v1/sessions', { body, headers: { origin: t.url } });
  expect(res.status).toBe(201);
  return {
    cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] as string,
    csrf: res.body.session.csrfToken,
  };
}

async function byLink(userId: string): Promise<Session> {
  const link = await t.app.sessions.createLoginLink({ org: 'acme', userId, role: 'pm' });
  return start({ link: new URL(link.url).hash.replace('#link=', '') });
}

/** The session's run stream and review-queue stream, open. */
async function streams(session: Session): Promise<SseClient[]> {
  const clients = await Promise.all(
    [`/api/v1/runs/${runId}/stream`, '/api/v1/reviews/stream'].map((path) =>
      openSse(t.url, path, { headers: { cookie: session.cookie } }),
    ),
  );
  opened.push(...clients);
  for (const client of clients) expect(client.status).toBe(200);
  return clients;
}

async function allEnd(clients: SseClient[], what: string): Promise<number> {
  const started = performance.now();
  await withTimeout(Promise.all(clients.map((c) => c.ended)), what, ENDS_WITHIN_MS);
  return performance.now() - started;
}

describe('the open streams of a browser session that ends', () => {
  it('end at sign-out, for a sign-in link’s session, while another session’s go on', async () => {
    const bystander = await byLink('stays');
    const bystanderStreams = await streams(bystander);
    let bystanderEnded = false;
    void Promise.race(bystanderStreams.map((c) => c.ended)).then(() => {
      bystanderEnded = true;
    });
    const leaving = await byLink('leaves');
    const clients = await streams(leaving);
    const out = await t.request('DELETE', '/api/v1/session', {
      headers: { cookie: leaving.cookie, origin: t.url, 'x-csrf-token': leaving.csrf },
    });
    expect(out.body).toEqual({ signedOut: true });
    const tookMs = await allEnd(clients, 'the signed-out session’s streams to end');
    // The signal ends them, not the timer (a loaded machine gets slack up to one period).
    expect(tookMs).toBeLessThan(STREAM_REVALIDATE_MS);
    await new Promise((resolve) => setTimeout(resolve, STREAM_REVALIDATE_MS + 200));
    expect(bystanderEnded).toBe(false);
    const reopened = await openSse(t.url, `/api/v1/runs/${runId}/stream`, {
      headers: { cookie: leaving.cookie },
    });
    expect(reopened.status).toBe(401);
  });

  it('end at sign-out for a pasted token’s session, though the token itself stays valid', async () => {
    const pasted = await t.token({ user: 'paster', role: 'pm', scopes: ['read:all'] });
    const session = await start({ token: pasted.token });
    const clients = await streams(session);
    const byToken = await openSse(t.url, `/api/v1/runs/${runId}/stream`, { token: pasted.token });
    opened.push(byToken);
    let tokenStreamEnded = false;
    void byToken.ended.then(() => {
      tokenStreamEnded = true;
    });
    await t.request('DELETE', '/api/v1/session', {
      headers: { cookie: session.cookie, origin: t.url, 'x-csrf-token': session.csrf },
    });
    await allEnd(clients, 'the pasted token session’s streams to end');
    await new Promise((resolve) => setTimeout(resolve, STREAM_REVALIDATE_MS + 200));
    expect(tokenStreamEnded).toBe(false);
  });

  it('end when an operator runs r3 session revoke (another process)', async () => {
    const first = await streams(await byLink('revoked-rita'));
    const second = await streams(await byLink('revoked-rita'));
    const cli = await runCli(['session', 'revoke', '--org', 'acme', '--user', 'revoked-rita'], {
      DATABASE_URL: t.database.url,
    });
    expect(cli.code, cli.stderr).toBe(0);
    await allEnd([...first, ...second], 'the revoked sessions’ streams to end');
  });
});
