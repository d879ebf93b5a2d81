/**
 * The /docs reference page in a real browser (Chromium through Playwright): Swagger UI renders the
 * API's operations under the page's Content-Security-Policy with no violation, and another site
 * cannot frame it.
 */
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { describeInBrowser, watchPageErrors } from '../../helpers/browser.js';

describeInBrowser('/docs in the browser', (suite) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await suite.start();
  });

  it('renders the operations under its policy, with no CSP violation', async () => {
    const page = await (await suite.b.context()).newPage();
    const errors = watchPageErrors(page);
    await page.goto(`${t.url}/docs`);
    await page.locator('.opblock-summary-path', { hasText: '/api/v1/runs' }).first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(50);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('is not shown in another origin’s frame', async () => {
    const page = await (await suite.b.context()).newPage();
    // Another document framing /docs; setContent returns once it and its frame have loaded.
    await page.setContent(`<iframe src="${t.url}/docs" title="framed"></iframe>`);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    expect(await frame?.locator('#swagger-ui').count()).toBe(0);
    await page.context().close();
  });
});
