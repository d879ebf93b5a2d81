/**
 * Undo's durable timer across a crash (decisions.md §15): r3 as a child process decides two items
 * with `delaySeconds`, one of them undone, and is killed (`kill -9`) during the delay; another r3
 * started after `effectiveAt` makes the decision take effect exactly once (one APPROVE transition,
 * one `approved` run event — the `run.approved` webhook's source) and never dispatches the undone one.
 */
import { describe, expect, it } from 'vitest';
import { sharedDatabase } from './helpers/multiprocess.js';
import { createCliToken } from './helpers/process.js';
import { waitFor } from './helpers/wait.js';

const shared = sharedDatabase();

/** How many APPROVE transitions and `approved` run events run `id` has. */
async function dispatched(id: number): Promise<{ approves: number; approvedEvents: number }> {
  const { rows } = await shared.db.query(
    `select (select count(*)::int from actor_transitions
              where actor_kind = 'skill-run' and actor_id = $1 and event_type = 'APPROVE') as approves,
            (select count(*)::int from run_events where run_id = $1 and event = 'approved') as "approvedEvents"`,
    [id],
  );
  return rows[0];
}

describe('a delayed decision across kill -9', () => {
  it('takes effect exactly once after the restart; the undone one never', async () => {
    const a = await shared.spawn();
    const { token } = await createCliToken(shared.database.url, 'undo');
    const api = shared.api(token);
    const skill = await api(a.url, 'POST', '/skills', {
      manifest: { slug: 'draft', name: 'Draft', requiresApproval: true },
      promptMd: 'Draft: {{input.text}}',
    });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);
    const ids: number[] = [];
    for (const text of ['kept', 'undone']) {
      const run = await api(a.url, 'POST', '/skills/draft/runs', { input: { text } });
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      ids.push(run.body.runId);
    }
    const [kept, undone] = ids as [number, number];
    for (const id of ids) {
      await waitFor(
        async () => (await api(a.url, 'GET', `/runs/${id}`)).body.output != null,
        'the draft',
        30_000,
      );
      const res = await api(a.url, 'POST', '/reviews/decide', {
        kind: 'skill',
        id,
        action: 'approve',
        delaySeconds: 4,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect((await api(a.url, 'POST', '/reviews/undo', { kind: 'skill', id: undone })).status).toBe(200);
    const held = (await api(a.url, 'GET', `/reviews/skill/${kept}`)).body.review;
    expect(held.status).toBe('deciding');

    // Killed during the delay; started again once effectiveAt has passed.
    a.child.kill('SIGKILL');
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Date.parse(held.effectiveAt) - Date.now() + 500)),
    );
    expect(await dispatched(kept)).toEqual({ approves: 0, approvedEvents: 0 });
    const b = await shared.spawn();

    await waitFor(
      async () => (await api(b.url, 'GET', `/runs/${kept}`)).body.status === 'approved',
      'the delayed approval to take effect',
      30_000,
    );
    // A further poll interval of the scheduler: still once.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await dispatched(kept)).toEqual({ approves: 1, approvedEvents: 1 });
    expect(await dispatched(undone)).toEqual({ approves: 0, approvedEvents: 0 });
    expect((await api(b.url, 'GET', `/runs/${undone}`)).body.status).toBe('pending');
    expect((await api(b.url, 'GET', `/reviews/skill/${undone}`)).body.review).toMatchObject({
      status: 'pending',
      effectiveAt: null,
    });
    const { rowCount } = await shared.db.query(
      `select 1 from timers where actor_kind = 'review-item' and timer_id = 'decide'`,
    );
    expect(rowCount).toBe(0);
    const ledger = await api(b.url, 'GET', '/audit/reviews?kind=skill&limit=200');
    const events = ledger.body.entries.map((e: { id: number; event: string }) => `${e.id}:${e.event}`);
    expect(events.filter((e: string) => e.endsWith(':decided'))).toEqual([`${kept}:decided`]);
    expect(events.filter((e: string) => e.endsWith(':undone'))).toEqual([`${undone}:undone`]);
  }, 120_000);
});
