/**
 * Revocation reaches streams already open: a token revoked through the API (by itself), revoked by
 * an operator's `r3 token revoke` (another process), or expired, stops receiving run events — its
 * streams end within the revalidation period — while another token's stream on the same run goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_REVALIDATE_MS } from '../../../../src/platform/auth/stream-revocation.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { runCli } from '../../../helpers/process.js';
import { createSkillRun, orgIdOf } from '../../../helpers/runs.js';
import { openSse, type SseClient } from '../../../helpers/sse.js';
import { withTimeout } from '../../../helpers/wait.js';

let t: TestApp;
let org: number;
let runId: number;
let bystander: SseClient;
let bystanderEnded = false;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  await t.token({ scopes: ['read:all'] });
  org = await orgIdOf(t.app);
  // A run that stays running (no workers): its stream stays open until something ends it.
  runId = (await createSkillRun(t.app, org)).actor.row.id;
  const other = await t.token({ scopes: ['read:all'] });
  bystander = await stream(other.token);
  void bystander.ended.then(() => {
    bystanderEnded = true;
  });
});
afterAll(async () => {
  bystander?.close();
  await t?.close();
});

const stream = (token: string) => openSse(t.url, `/api/v1/runs/${runId}/stream`, { token });

/** Generous: the signal ends it at once, the timer within STREAM_REVALIDATE_MS; a loaded machine is slower. */
const ENDS_WITHIN_MS = STREAM_REVALIDATE_MS + 4_000;

describe('open streams of a token that stops being valid', () => {
  it('end when the token revokes itself through the API, and a new request is refused', async () => {
    const { id, token } = await t.token({ scopes: ['read:all'] });
    const client = await stream(token);
    expect(client.status).toBe(200);
    const revoked = await t.request('DELETE', `/api/v1/tokens/${id}`, { token });
    expect(revoked.status).toBe(200);
    await withTimeout(client.ended, 'the revoked token’s stream to end', ENDS_WITHIN_MS);
    expect((await stream(token)).status).toBe(401);
  });

  it('end when an operator revokes the token from another process (r3 token revoke)', async () => {
    const { id, token } = await t.token({ scopes: ['read:all'] });
    const client = await stream(token);
    const cli = await runCli(['token', 'revoke', id], { DATABASE_URL: t.database.url });
    expect(cli.code, cli.stderr).toBe(0);
    await withTimeout(client.ended, 'the stream of a token revoked by the CLI to end', ENDS_WITHIN_MS);
  });

  it('end when the token expires', async () => {
    const { token } = await t.token({ scopes: ['read:all'], expiresAt: new Date(t.clock.now() + 60_000) });
    const client = await stream(token);
    expect(client.status).toBe(200);
    t.clock.advance(61_000);
    await withTimeout(client.ended, 'the expired token’s stream to end', ENDS_WITHIN_MS);
  });

  it('leave the other tokens’ streams open (after every revocation above, and a period more)', async () => {
    await new Promise((resolve) => setTimeout(resolve, STREAM_REVALIDATE_MS + 200));
    expect(bystanderEnded).toBe(false);
    expect(t.app.http.openStreams).toBe(1);
  });
});
