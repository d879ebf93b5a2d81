/**
 * The page reader of fetch_url and crawl_site: HTML read in worker threads (readable content as
 * Markdown, links absolute against `<base href>`), off the event loop; a read past its time bound is
 * TOOL_TIMEOUT and its worker replaced; a closed reader refuses.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PageReader } from '../../../src/features/tools/page-reader.js';
import { ApiError } from '../../../src/platform/errors.js';

const readers: PageReader[] = [];
const newReader = (options?: ConstructorParameters<typeof PageReader>[0]) => {
  const reader = new PageReader(options);
  readers.push(reader);
  return reader;
};
afterAll(async () => {
  for (const reader of readers) await reader.close();
});

/** An HTML page of about `kib` KiB of paragraphs with links. */
const bigPage = (kib: number) =>
  `<html><head><title>Big</title></head><body>${Array.from(
    { length: Math.ceil((kib * 1024) / 130) },
    (_, i) =>
      `<div><p>word ${i} tide moon harbour vessel current chart <a href="/x/${i}">link ${i}</a> swell.</p></div>`,
  ).join('')}</body></html>`;

const failure = async (promise: Promise<unknown>): Promise<ApiError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
};

describe('PageReader', () => {
  it('reads the main content as Markdown with links made absolute against <base href>', async () => {
    const page = await newReader().read(
      `<html><head><title>T</title><base href="https://docs.example/guide/"></head><body>
       <article><h1>Guide</h1><p>The harbour opens at dawn and closes at dusk, every day of the year,
       whatever the weather says; boats come in on the tide and leave on the next one.</p>
       <p><a href="ch2.html#top">Chapter 2</a> <img src="/img/map.png" alt="map"></p></article></body></html>`,
      'https://docs.example/guide/index.html',
    );
    expect(page.title).toBe('T');
    expect(page.text).toContain('The harbour opens at dawn');
    expect(page.text).toContain('[Chapter 2](https://docs.example/guide/ch2.html#top)');
    expect(page.text).toContain('![map](https://docs.example/img/map.png)');
    expect(page.links).toEqual(['https://docs.example/guide/ch2.html']);
  });

  it('reads off the event loop: timers and a small page finish while a large page is read', async () => {
    const reader = newReader({ size: 2 });
    const order: string[] = [];
    const large = reader.read(bigPage(1024), 'http://x/').then(() => order.push('large'));
    const timer = new Promise<void>((resolve) => setTimeout(resolve, 1)).then(() => order.push('timer'));
    const small = reader.read('<p>small page</p>', 'http://x/').then(() => order.push('small'));
    await Promise.all([large, timer, small]);
    expect(order.indexOf('large')).toBe(2);
  });

  it('answers TOOL_TIMEOUT past the time bound, for the page read and the one queued behind it', async () => {
    const reader = newReader({ size: 1, timeoutMs: 20 });
    const [first, second] = await Promise.all([
      failure(reader.read(bigPage(2048), 'http://x/')),
      failure(reader.read(bigPage(2048), 'http://x/')),
    ]);
    for (const error of [first, second]) {
      expect(error.code).toBe('TOOL_TIMEOUT');
      expect(error.details).toEqual({ reason: 'read', limitMs: 20 });
    }
  });

  it('refuses reads once closed', async () => {
    const reader = new PageReader();
    await reader.close();
    const error = await failure(reader.read('<p>x</p>', 'http://x/'));
    expect(error.details).toEqual({ reason: 'read_failed' });
  });
});
