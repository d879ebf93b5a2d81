/**
 * Review deadlines on two r3 processes sharing one database, with one killed (`kill -9`) while the
 * timers fire and a third started in its place: every deadline timer of every item fires exactly
 * once — the reminder once, the deadline once, the escalation's second deadline once — whichever
 * process claims it, and one killed mid-transaction loses none (its transaction rolls back and
 * another process claims the timer). The timers run on the real clock: the policy's durations are
 * seconds.
 */
import { describe, expect, it } from 'vitest';
import { sharedDatabase } from './helpers/multiprocess.js';
import { createCliToken } from './helpers/process.js';
import { waitFor } from './helpers/wait.js';

const ITEMS = 60;

const shared = sharedDatabase();

/** How many transitions of each timer event each of the org's review items took. */
async function firings(): Promise<Array<{ item: number; dueSoon: number; due: number }>> {
  const { rows } = await shared.db.query(
    `select i.id as item,
            count(*) filter (where t.event_type = 'DUE_SOON')::int as "dueSoon",
            count(*) filter (where t.event_type = 'DUE')::int as due
       from review_items i
       left join actor_transitions t on t.actor_kind = 'review-item' and t.actor_id = i.id
      group by i.id order by i.id`,
  );
  return rows;
}

describe('deadline timers on two processes, one killed with SIGKILL', () => {
  it('fire exactly once each: reminder, deadline (escalation), the escalation’s deadline', async () => {
    const [a, b] = await Promise.all([shared.spawn(), shared.spawn()]);
    const { token } = await createCliToken(shared.database.url, 'multi');
    const api = shared.api(token);
    const policy = await api(a.url, 'POST', '/review-policies', {
      slug: 'quick',
      name: 'Quick',
      dueIn: '4s',
      remindBefore: '2s',
      onTimeout: 'escalate',
      escalateTo: { users: ['owner'] },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const skill = await api(a.url, 'POST', '/skills', {
      manifest: { slug: 'quick', name: 'Quick', requiresApproval: true, reviewPolicy: 'quick' },
      promptMd: 'Draft: {{input.text}}',
    });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);

    // Items opened through both processes.
    const runs = await Promise.all(
      Array.from({ length: ITEMS }, (_, i) =>
        api(i % 2 === 0 ? a.url : b.url, 'POST', '/skills/quick/runs', { input: { text: `n${i}` } }),
      ),
    );
    expect(runs.map((r) => r.status)).toEqual(Array(ITEMS).fill(202));

    // Kill A (no shutdown: its open transactions die with its connections) once the timers fire.
    await waitFor(async () => (await firings()).some((f) => f.dueSoon > 0), 'the first reminders', 30_000);
    a.child.kill('SIGKILL');
    const c = await shared.spawn();

    await waitFor(
      async () => {
        const left = await shared.db.query(`select 1 from timers where actor_kind = 'review-item'`);
        const all = await firings();
        return left.rowCount === 0 && all.length === ITEMS && all.every((f) => f.due >= 2);
      },
      'every deadline timer to fire',
      90_000,
      200,
    );
    const fired = await firings();
    expect(fired).toEqual(fired.map((f) => ({ item: f.item, dueSoon: 1, due: 2 })));
    // Each item escalated once, to `owner`, and is overdue after its second deadline.
    const { rows: items } = await shared.db.query(
      `select assigned_to, note, snapshot->'context'->'deadline'->>'stage' as stage from review_items`,
    );
    expect(items).toEqual(Array(ITEMS).fill({ assigned_to: 'owner', note: 'escalated', stage: 'overdue' }));
    const ledger = await api(b.url, 'GET', '/audit/reviews?limit=200');
    const escalations = ledger.body.entries.filter((e: { event: string }) => e.event === 'escalated');
    expect(escalations).toHaveLength(ITEMS);
    expect(new Set(escalations.map((e: { id: number }) => e.id)).size).toBe(ITEMS);
    expect((await api(c.url, 'GET', '/reviews?overdue=true&limit=200')).body.reviews).toHaveLength(ITEMS);
  }, 180_000);
});
