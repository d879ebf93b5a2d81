/**
 * `/api/v1/artifacts*` (docs/api.md "Artifacts"): metadata and bytes of the org's artifacts, by run; another
 * org's artifact is 404; `read:all` needed; bad query values are 400; the bytes are served so a
 * browser never runs them (nosniff, CSP sandbox, attachment unless a raster image); the size cap.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { orgIdOf, type TwoOrgs, twoOrgsWithRuns } from '../../helpers/runs.js';

let t: TestApp;
let orgs: TwoOrgs;
let redOrg: number;

beforeAll(async () => {
  t = await startTestApp({ R3_ARTIFACT_MAX_BYTES: '4096' });
  orgs = await twoOrgsWithRuns(t);
  redOrg = await orgIdOf(t.app, 'red');
});
afterAll(async () => {
  await t.close();
});

const maker = (runId: number | null = null) => ({
  orgId: redOrg,
  actor: `token:${orgs.red.id}`,
  apiTokenId: orgs.red.id,
  runId,
});

describe('artifact endpoints', () => {
  it('lists, reads and serves an artifact of a run', async () => {
    const made = await t.app.artifacts.create(maker(orgs.redRun), {
      name: 'report.md',
      mediaType: 'text/markdown; charset=utf-8',
      content: Buffer.from('# Hello\n'),
    });
    expect(made).toMatchObject({
      name: 'report.md',
      bytes: 8,
      runId: orgs.redRun,
      missionRunId: null,
      createdBy: `token:${orgs.red.id}`,
    });
    expect(made.sha256).toBe(createHash('sha256').update('# Hello\n').digest('hex'));
    expect(made.url).toBe(`${t.app.url}/api/v1/artifacts/${made.id}/content`);

    const list = await t.request('GET', `/api/v1/artifacts?runId=${orgs.redRun}`, { token: orgs.red.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ artifacts: [made], nextCursor: null });

    const one = await t.request('GET', `/api/v1/artifacts/${made.id}`, { token: orgs.red.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(made);

    const content = await t.request('GET', `/api/v1/artifacts/${made.id}/content`, { token: orgs.red.token });
    expect(content.status).toBe(200);
    expect(content.text).toBe('# Hello\n');
    expect(content.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(content.headers.get('x-content-type-options')).toBe('nosniff');
    expect(content.headers.get('content-security-policy')).toBe('sandbox');
    expect(content.headers.get('content-disposition')).toBe(
      `attachment; filename="report.md"; filename*=UTF-8''report.md`,
    );
  });

  it('pages through the list and filters by run', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await t.app.artifacts.create(maker(), {
        name: `n${i}.txt`,
        mediaType: 'text/plain',
        content: Buffer.from(String(i)),
      });
      ids.push(a.id);
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { artifacts: Array<{ id: number }>; nextCursor: string | null } } = await t.request(
        'GET',
        `/api/v1/artifacts?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { token: orgs.red.token },
      );
      seen.push(...page.body.artifacts.map((a) => a.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen).toEqual(expect.arrayContaining(ids));
    const ofRun = await t.request('GET', `/api/v1/artifacts?runId=${orgs.redRun}`, { token: orgs.red.token });
    expect(ofRun.body.artifacts.map((a: { id: number }) => a.id)).not.toContain(ids[0]);
  });

  it('serves only raster images inline; HTML, SVG and JavaScript are attachments', async () => {
    const cases: Array<[string, string, string]> = [
      ['page.html', 'text/html', 'attachment'],
      ['drawing.svg', 'image/svg+xml', 'attachment'],
      ['app.js', 'text/javascript', 'attachment'],
      ['data.bin', 'application/octet-stream', 'attachment'],
      ['pixel.png', 'image/png', 'inline'],
      ['ünïcode "q".txt', 'text/plain', 'attachment'],
    ];
    for (const [name, mediaType, disposition] of cases) {
      const a = await t.app.artifacts.create(maker(), {
        name,
        mediaType,
        content: Buffer.from('<script>1</script>'),
      });
      const res = await t.request('GET', `/api/v1/artifacts/${a.id}/content`, { token: orgs.red.token });
      expect(res.headers.get('content-type')).toBe(mediaType);
      const header = res.headers.get('content-disposition') ?? '';
      expect(header.startsWith(`${disposition}; filename="`), header).toBe(true);
      expect(header).not.toMatch(/[^\x20-\x7e]/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it("answers 404 for another org's artifact and hides it from lists", async () => {
    const a = await t.app.artifacts.create(maker(orgs.redRun), {
      name: 'secret.txt',
      mediaType: 'text/plain',
      content: Buffer.from('red only'),
    });
    for (const path of [
      `/api/v1/artifacts/${a.id}`,
      `/api/v1/artifacts/${a.id}/content`,
      '/api/v1/artifacts/999999',
    ]) {
      const res = await t.request('GET', path, { token: orgs.blue.token });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const list = await t.request('GET', `/api/v1/artifacts?runId=${orgs.redRun}`, { token: orgs.blue.token });
    expect(list.body.artifacts).toEqual([]);
    const all = await t.request('GET', '/api/v1/artifacts', { token: orgs.blue.token });
    expect(all.body.artifacts).toEqual([]);
  });

  it('needs read:all (403) and a token (401)', async () => {
    const skillsOnly = await t.token({ org: 'red', scopes: ['read:skills', 'run:invoke'] });
    for (const path of ['/api/v1/artifacts', '/api/v1/artifacts/1', '/api/v1/artifacts/1/content']) {
      const res = await t.request('GET', path, { token: skillsOnly.token });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect((await t.request('GET', path)).status).toBe(401);
    }
  });

  it('answers 400 for bad query values', async () => {
    for (const query of [
      'runId=abc',
      'runId=0',
      'missionRunId=-1',
      'limit=500',
      'cursor=nope',
      'color=red',
    ]) {
      const res = await t.request('GET', `/api/v1/artifacts?${query}`, { token: orgs.red.token });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses content over R3_ARTIFACT_MAX_BYTES, a bad media type or name, and stores nothing', async () => {
    const before = await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from artifacts');
    await expect(
      t.app.artifacts.create(maker(), {
        name: 'big.bin',
        mediaType: 'application/octet-stream',
        content: Buffer.alloc(4097),
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { limitBytes: 4096, bytes: 4097 } });
    await expect(
      t.app.artifacts.create(maker(), {
        name: 'x.txt',
        mediaType: 'text/plain\r\nSet-Cookie: a=b',
        content: Buffer.from('x'),
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(
      t.app.artifacts.create(maker(), {
        name: '../etc/passwd',
        mediaType: 'text/plain',
        content: Buffer.from('x'),
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const exact = await t.app.artifacts.create(maker(), {
      name: 'max.bin',
      mediaType: 'application/octet-stream',
      content: Buffer.alloc(4096, 1),
    });
    expect(exact.bytes).toBe(4096);
    const after = await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from artifacts');
    expect(after.n).toBe(before.n + 1);
  });

  it('answers the first artifact again for a reused idempotency key', async () => {
    const key = { ...maker(orgs.redRun), idempotencyKey: `run:${orgs.redRun}:call_1` };
    const first = await t.app.artifacts.create(key, {
      name: 'a.txt',
      mediaType: 'text/plain',
      content: Buffer.from('a'),
    });
    const again = await t.app.artifacts.create(key, {
      name: 'a.txt',
      mediaType: 'text/plain',
      content: Buffer.from('a'),
    });
    expect(again).toEqual(first);
  });
});
