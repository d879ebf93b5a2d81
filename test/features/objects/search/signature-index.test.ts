/**
 * The in-memory signature prefilter: nearest neighbours by masked Hamming distance, type filtering,
 * and following the database — including a transaction that commits after a later one was seen.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../../../../src/features/objects/search/local-embedder.js';
import {
  SignatureIndex,
  signatureQuery,
  signatureWords,
} from '../../../../src/features/objects/search/signature-index.js';
import { encodeSignature } from '../../../../src/features/objects/search/vector-codec.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let orgId: number;
const embedder = createLocalEmbedder();

beforeAll(async () => {
  t = await startTestApp();
  await t.token({ org: 'sig-org' });
  orgId = (await t.app.db.sql.one<{ id: number }>(`select id from orgs where slug = 'sig-org'`)).id;
});
afterAll(() => t.close());

const INSERT = `insert into object_instances (org_id, type_slug, title, content, metadata, status, language, search,
                  embedder, signature, created_at, updated_at, created_by)
                values ($1, $2, $3, '', '{}', $4, 'english', ''::tsvector, 'local-hash-v1', $5, now(), now(), 'test')
                returning id`;

async function insert(
  client: pg.Client | null,
  title: string,
  type = 'note',
  status = 'active',
): Promise<number> {
  const params = [orgId, type, title, status, encodeSignature(embedder.embedSync(title))];
  if (client)
    return (await client.query<{ id: string }>(INSERT, params)).rows.map((r) => Number(r.id))[0] as number;
  return (await t.app.db.sql.one<{ id: number }>(INSERT, params)).id;
}

const query = (text: string) => signatureQuery(embedder.embedSync(text), 64);

describe('SignatureIndex', () => {
  it('packs signatures into words, most significant bit first', () => {
    expect([...signatureWords(Uint8Array.from([0x80, 0, 0, 1, 0xff]), 2)]).toEqual([0x80000001, 0xff000000]);
  });

  it('ranks a document’s own text nearest; filters by type; skips archived documents', async () => {
    const index = new SignatureIndex(t.app.db.sql, { embedder: 'local-hash-v1', dimensions: 256 });
    const kayak = await insert(null, 'kayak rental by the lake');
    const invoice = await insert(null, 'overdue invoice reminder for march', 'mail');
    const archived = await insert(null, 'kayak rental by the lake shore', 'note', 'archived');
    const nearest = await index.nearest(orgId, query('kayak rental by the lake'), 2);
    expect(nearest[0]).toBe(kayak);
    expect(nearest).not.toContain(archived);
    expect(await index.nearest(orgId, query('kayak rental'), 5, new Set(['mail']))).toEqual([invoice]);
    expect(index.size(orgId)).toBe(3);
  });

  it('sees a transaction that commits after a later one was already seen', async () => {
    const index = new SignatureIndex(t.app.db.sql, { embedder: 'local-hash-v1', dimensions: 256 });
    await index.nearest(orgId, query('warm up'), 1);
    const slow = new pg.Client({ connectionString: t.database.url });
    await slow.connect();
    try {
      await slow.query('begin');
      const early = await insert(slow, 'early transaction zeppelin');
      const late = await insert(null, 'late transaction zeppelin');
      const seen = await index.nearest(orgId, query('transaction zeppelin'), 10);
      expect(seen).toContain(late);
      expect(seen).not.toContain(early);
      await slow.query('commit');
      expect(await index.nearest(orgId, query('transaction zeppelin'), 10)).toContain(early);
    } finally {
      await slow.end();
    }
  });
});
