/**
 * Browser tests: Playwright (playwright-core) driving Debian's Chromium (`apt-get install chromium`;
 * .ci/run installs it). Where it is missing the tests are skipped with a printed reason, except
 * under `CI`, where a missing browser fails the suite:
 *
 * ```ts
 * describeInBrowser('…', (suite) => {
 *   beforeAll(async () => { t = await suite.start(env); });
 *   it('…', async () => { const page = await suite.signIn(who, path); });
 * });
 * ```
 *
 * `checkAccessibility` runs axe-core in the page; `screenshot` keeps a picture of each page under
 * test-artifacts/screenshots/ (not committed).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Role } from '../../src/platform/auth/principal.js';
import { startTestApp, type TestApp } from './app.js';

export const CHROMIUM_PATH = process.env.R3_TEST_CHROMIUM ?? '/usr/bin/chromium';

export interface BrowserProbe {
  available: boolean;
  required: boolean;
  skip: boolean;
}

/** Whether Chromium is installed; prints why the browser tests skip when it is not (and CI is unset). */
export function probeBrowser(): BrowserProbe {
  const ci = process.env.CI?.trim().toLowerCase();
  const required = ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
  const available = existsSync(CHROMIUM_PATH);
  const skip = !available && !required;
  if (skip) {
    console.warn(
      `[browser] Chromium is not installed at ${CHROMIUM_PATH}: SKIPPING the web UI's browser tests. ` +
        'Install it with `apt-get install chromium` (or set R3_TEST_CHROMIUM); set CI=1 to make this a failure.',
    );
  }
  return { available, required, skip };
}

/** A launched Chromium. */
export interface TestBrowser {
  browser: Browser;
  /** A fresh context (cookies of its own), 1280×800 unless told. */
  context(options?: { width?: number; height?: number }): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Launches Chromium headless (throws when it is missing: under CI that fails the suite). */
async function launchBrowser(probe: BrowserProbe): Promise<TestBrowser> {
  if (!probe.available) {
    throw new Error(`Chromium is required (CI is set) but not installed at ${CHROMIUM_PATH}`);
  }
  // Playwright gives every launch a fresh temporary profile (its own --user-data-dir, removed at close).
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    context: (o = {}) =>
      browser.newContext({ viewport: { width: o.width ?? 1280, height: o.height ?? 800 } }),
    close: () => browser.close(),
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** An axe-core violation, as much as a failure message needs. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** Runs axe-core on the page; answers the serious and critical violations (none expected). */
export async function checkAccessibility(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) does not apply.
  await page.evaluate(axeSource);
  // A string: the test's TypeScript has no DOM types; this runs in the page.
  const violations = await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    })))`);
  return (violations as AxeViolation[]).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const SCREENSHOTS = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '..',
  '..',
  'test-artifacts',
  'screenshots',
);

/** Keeps a full-page screenshot as a test artifact (test-artifacts/screenshots/<name>.png). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Collects the page's CSP violations, console errors and uncaught errors (a test expects none). */
export function watchPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // An API answer of 401/404 is logged by the browser as a failed load: expected, not an error.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      errors.push(`console: ${message.text()}`);
    }
  });
  return errors;
}

/**
 * Signs `who` in the way a person does (a one-time link from `r3 login-link`) in a new page of a
 * fresh context (1280×800 unless `viewport` says otherwise), waits for the queue it lands on, then
 * opens `path` when given.
 */
async function signIn(
  t: TestApp,
  b: TestBrowser,
  who: { org: string; userId: string; role: Role },
  path?: string,
  viewport?: { width: number; height: number },
): Promise<Page> {
  const link = await t.app.sessions.createLoginLink(who);
  const page = await (await b.context(viewport)).newPage();
  await page.goto(link.url);
  await page.waitForURL(`${t.url}/review`);
  if (path) await page.goto(`${t.url}${path}`);
  return page;
}

/** Throws, naming the widest elements, when the page scrolls sideways (wide content must scroll in its own region). */
export async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const overflow = (await page.evaluate(
    'document.documentElement.scrollWidth - window.innerWidth',
  )) as number;
  if (overflow <= 0) return;
  const wide = await page.evaluate(
    `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 6).map((e) => e.tagName + '.' + e.className).join(', ')`,
  );
  throw new Error(`${name} scrolls sideways by ${overflow} px: ${wide}`);
}

/** A browser test file's Chromium and r3 app (see `browserSuite`). */
export interface BrowserSuite {
  /** The browser, launched before the file's own `beforeAll`. */
  readonly b: TestBrowser;
  /** Starts the file's app (once, in its `beforeAll`); it is closed after the file's tests. */
  start(env?: Record<string, string>): Promise<TestApp>;
  /** `signIn` on the suite's app and browser. */
  signIn(
    who: { org: string; userId: string; role: Role },
    path?: string,
    viewport?: { width: number; height: number },
  ): Promise<Page>;
}

/**
 * The setup every browser test file shares: a `describe` skipped where Chromium is missing (see
 * `probeBrowser`), with Chromium launched before the file's hooks and the app the file starts with
 * `suite.start`, both closed after its tests.
 */
export function describeInBrowser(name: string, body: (suite: BrowserSuite) => void): void {
  const probe = probeBrowser();
  describe.skipIf(probe.skip)(name, () => body(browserSuite(probe)));
}

function browserSuite(probe: BrowserProbe): BrowserSuite {
  let browser: TestBrowser | undefined;
  let app: TestApp | undefined;
  beforeAll(async () => {
    browser = await launchBrowser(probe);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
  const started = (): TestApp => {
    if (!app) throw new Error('browserSuite: start() the app in the file’s beforeAll first');
    return app;
  };
  return {
    get b() {
      if (!browser) throw new Error('browserSuite: the browser is launched in beforeAll');
      return browser;
    },
    async start(env) {
      app = await startTestApp(env);
      return app;
    },
    signIn(who, path, viewport) {
      return signIn(started(), this.b, who, path, viewport);
    },
  };
}
