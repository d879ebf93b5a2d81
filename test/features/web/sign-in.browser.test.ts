/**
 * Signing in from a real browser (Chromium through Playwright): by one-time link, by pasted token,
 * either keeping the deep link asked for, an expired session sent back to sign-in, sign-out; no CSP violation and no serious axe-core finding
 * on the pages; usable at 360 px wide.
 */
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';

describeInBrowser('sign-in in the browser', (suite) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await suite.start();
  });

  it('a sign-in link opens the queue signed in; the same link again is refused', async () => {
    const link = await t.app.sessions.createLoginLink({ org: 'acme', userId: 'lina', role: 'pm' });
    const context = await suite.b.context();
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await page.goto(link.url);
    await page.waitForURL(`${t.url}/review`);
    await expect(page.getByText('lina · acme · pm').isVisible()).resolves.toBe(true);
    expect(page.url()).not.toContain('link=');
    await screenshot(page, 'review-signed-in');
    expect(await checkAccessibility(page)).toEqual([]);
    expect(errors).toEqual([]);

    const other = await (await suite.b.context()).newPage();
    await other.goto(link.url);
    await other.getByRole('alert').waitFor();
    expect(await other.getByRole('alert').textContent()).toContain('used already');
    expect(other.url()).toContain('/login');
    await screenshot(other, 'login-link-used');
    expect(await checkAccessibility(other)).toEqual([]);
    await other.context().close();
    await context.close();
  });

  it('a sign-in link keeps the deep link: its own next, or the page that sent the browser to sign in', async () => {
    // The link names the page to open (r3 login-link --next).
    const direct = await t.app.sessions.createLoginLink({
      org: 'acme',
      userId: 'deep-dora',
      role: 'pm',
      next: '/admin/tokens',
    });
    const first = await (await suite.b.context()).newPage();
    await first.goto(direct.url);
    await first.waitForURL(`${t.url}/admin/tokens`);
    await first.context().close();

    // A deep link opened signed out goes to sign-in; a plain link opened in another tab of the same
    // browser then opens the page asked for.
    const context = await suite.b.context();
    const asked = await context.newPage();
    await asked.goto(`${t.url}/admin/webhooks`);
    await asked.waitForURL(/\/login\?next=%2Fadmin%2Fwebhooks$/);
    const link = await t.app.sessions.createLoginLink({ org: 'acme', userId: 'deep-dora' });
    const tab = await context.newPage();
    await tab.goto(link.url);
    await tab.waitForURL(`${t.url}/admin/webhooks`);
    // Remembered once: the next plain link opens the queue.
    const again = await context.newPage();
    await again.goto((await t.app.sessions.createLoginLink({ org: 'acme', userId: 'deep-dora' })).url);
    await again.waitForURL(`${t.url}/review`);
    await context.close();
  });

  it('a pasted token signs in and goes back to the page asked for; sign-out ends the session', async () => {
    const created = await t.token({ user: 'tom', role: 'owner' });
    const context = await suite.b.context();
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await page.goto(`${t.url}/admin/tokens`);
    await page.waitForURL(/\/login\?next=%2Fadmin%2Ftokens$/);
    await screenshot(page, 'login');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.getByLabel('API token').fill(created.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.url}/admin/tokens`);
    await page.getByText('tom · acme · owner').waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'r3_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${t.url}/login`);
    const replay = await fetch(`${t.url}/api/v1/session`, {
      headers: { cookie: `r3_session=${session?.value}` },
    });
    expect(replay.status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an expired session sends the browser to sign-in, keeping the page to return to', async () => {
    const link = await t.app.sessions.createLoginLink({ org: 'acme', userId: 'idle-ida', role: 'pm' });
    const context = await suite.b.context();
    const page = await context.newPage();
    await page.goto(link.url);
    await page.waitForURL(`${t.url}/review`);
    t.clock.advance(13 * 3_600_000);
    await page.reload();
    await page.waitForURL(/\/login\?next=%2Freview$/);
    await context.close();
  });

  it('fits a 360 px wide screen without sideways scrolling', async () => {
    const link = await t.app.sessions.createLoginLink({ org: 'acme', userId: 'narrow-nick', role: 'pm' });
    const context = await suite.b.context({ width: 360, height: 740 });
    const page = await context.newPage();
    await page.goto(link.url);
    await page.waitForURL(`${t.url}/review`);
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow as number).toBeLessThanOrEqual(0);
    await screenshot(page, 'review-360px');
    await context.close();
  });
});
