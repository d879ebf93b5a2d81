/**
 * Reads HTML pages off the event loop: a small pool of worker threads (`page-reader-worker.ts`), one
 * page per worker at a time, each read bounded in time (past it the worker is terminated and the read
 * is TOOL_TIMEOUT) and in heap (a page whose DOM outgrows it ends its worker: TOOL_FAILED). Workers
 * start on the first page and stay for the next ones.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { toolFailed, toolTimeout } from '../../platform/errors.js';
import { PAGE_READER_WORKER_SOURCE } from './page-reader-worker.js';
import type { ReadPage } from './web-page.js';

/** Bound on reading one page. */
export const DEFAULT_READ_TIMEOUT_MS = 10_000;
/** Heap of one reader worker: a 10 MiB page's DOM fits. */
const READER_HEAP_MB = 512;

interface ReadJob {
  id: number;
  html: string;
  url: string;
  resolve(page: ReadPage): void;
  reject(error: unknown): void;
}

interface Reader {
  worker: Worker;
  job: ReadJob | null;
  timer: NodeJS.Timeout | null;
}

export interface PageReaderOptions {
  /** Worker threads at most (default 2). */
  size?: number;
  timeoutMs?: number;
}

/** The pool of page readers. */
export class PageReader {
  private readonly readers: Reader[] = [];
  private readonly queue: ReadJob[] = [];
  private readonly size: number;
  private readonly timeoutMs: number;
  private readonly paths: { linkedomPath: string; readabilityPath: string; turndownPath: string };
  private nextId = 1;
  private closed = false;

  constructor(options: PageReaderOptions = {}) {
    this.size = options.size ?? 2;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    const require = createRequire(import.meta.url);
    this.paths = {
      linkedomPath: require.resolve('linkedom'),
      readabilityPath: require.resolve('@mozilla/readability'),
      turndownPath: require.resolve('turndown'),
    };
  }

  /** Reads the HTML page fetched from `url`: its readable content as Markdown, title, absolute links. */
  read(html: string, url: string): Promise<ReadPage> {
    if (this.closed)
      return Promise.reject(toolFailed('The page reader is closed.', { reason: 'read_failed' }));
    return new Promise<ReadPage>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, html, url, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const closedError = toolFailed('The page reader is closed.', { reason: 'read_failed' });
    for (const job of this.queue.splice(0)) job.reject(closedError);
    await Promise.all(this.readers.splice(0).map((reader) => this.retire(reader, closedError)));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let reader = this.readers.find((r) => r.job === null);
      if (!reader && this.readers.length < this.size) {
        reader = this.spawn();
        this.readers.push(reader);
      }
      if (!reader) return;
      const job = this.queue.shift() as ReadJob;
      reader.job = job;
      reader.timer = setTimeout(() => {
        this.drop(
          reader as Reader,
          toolTimeout(`Reading the page took longer than ${this.timeoutMs} ms.`, {
            reason: 'read',
            limitMs: this.timeoutMs,
          }),
        );
      }, this.timeoutMs);
      reader.worker.postMessage({ id: job.id, html: job.html, url: job.url });
    }
  }

  private spawn(): Reader {
    const worker = new Worker(PAGE_READER_WORKER_SOURCE, {
      eval: true,
      workerData: this.paths,
      resourceLimits: { maxOldGenerationSizeMb: READER_HEAP_MB },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    const reader: Reader = { worker, job: null, timer: null };
    worker.on('message', (message: { id: number; page?: ReadPage; error?: string }) => {
      const job = reader.job;
      if (!job || job.id !== message.id) return;
      if (reader.timer) clearTimeout(reader.timer);
      reader.job = null;
      reader.timer = null;
      if (message.page) job.resolve(message.page);
      else job.reject(toolFailed('The page could not be read.', { reason: 'read_failed' }));
      this.pump();
    });
    const failed = (): void =>
      this.drop(
        reader,
        toolFailed('The page could not be read (too large or malformed).', { reason: 'read_failed' }),
      );
    worker.on('error', failed);
    worker.on('exit', failed);
    return reader;
  }

  /** Ends `reader` (its job answered with `error`) and serves the queue with the others. */
  private drop(reader: Reader, error: unknown): void {
    const index = this.readers.indexOf(reader);
    if (index < 0) return;
    this.readers.splice(index, 1);
    void this.retire(reader, error);
    this.pump();
  }

  private async retire(reader: Reader, error: unknown): Promise<void> {
    if (reader.timer) clearTimeout(reader.timer);
    const job = reader.job;
    reader.job = null;
    job?.reject(error);
    reader.worker.removeAllListeners('exit');
    reader.worker.removeAllListeners('error');
    reader.worker.on('error', () => undefined);
    await reader.worker.terminate();
  }
}
