/**
 * The code of a page-reader worker thread, as text (started with `eval: true`, like run_code's, so
 * the same code runs from the TypeScript sources and the compiled build). It reads an HTML page the
 * way `fetch_url` and `crawl_site` answer it: linkedom parses it, links and images are made absolute
 * (against `<base href>` when there is one), Mozilla's Readability keeps the main content and turndown
 * writes it as Markdown. Reading a large page takes seconds of CPU, which is why it is not done on
 * the event loop that serves HTTP.
 */
export const PAGE_READER_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { parseHTML } = require(workerData.linkedomPath);
const { Readability } = require(workerData.readabilityPath);
const TurndownService = require(workerData.turndownPath);

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '*',
});
turndown.remove(['script', 'style', 'noscript', 'iframe', 'form']);

function absolute(value, base) {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  try {
    return new URL(value.trim(), base).href;
  } catch {
    return undefined;
  }
}

function read(html, url) {
  const whole = /<html[\s>]/i.test(html) ? html : '<!doctype html><html><head></head><body>' + html + '</body></html>';
  const { document } = parseHTML(whole);
  const baseElement = document.querySelector('base[href]');
  const base = absolute(baseElement ? baseElement.getAttribute('href') : null, url) || url;

  const links = [];
  const seen = new Set();
  for (const anchor of document.querySelectorAll('a[href]')) {
    const href = absolute(anchor.getAttribute('href'), base);
    if (href === undefined) continue;
    anchor.setAttribute('href', href);
    if (!href.startsWith('http://') && !href.startsWith('https://')) continue;
    const link = href.split('#')[0];
    if (!seen.has(link)) {
      seen.add(link);
      links.push(link);
    }
  }
  for (const image of document.querySelectorAll('img[src]')) {
    const src = absolute(image.getAttribute('src'), base);
    if (src !== undefined) image.setAttribute('src', src);
  }

  const titleElement = document.querySelector('title');
  const pageTitle = titleElement && titleElement.textContent ? titleElement.textContent.trim() : '';
  let article = null;
  try {
    article = new Readability(document).parse();
  } catch {
    article = null;
  }
  const body = document.querySelector('body');
  const content = (article && article.content) || (body ? body.innerHTML : '');
  const text = turndown.turndown(content).trim();
  const title = ((article && article.title) || '').trim() || pageTitle;
  return { title: title === '' ? null : title, text, links };
}

parentPort.on('message', (job) => {
  let answer;
  try {
    answer = { id: job.id, page: read(job.html, job.url) };
  } catch (error) {
    answer = { id: job.id, error: String((error && error.message) || error) };
  }
  parentPort.postMessage(answer);
});
`;
