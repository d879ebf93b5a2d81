/**
 * The draft sanitizer (web/src/review/markdown.ts) reports what it removed, run where it runs: in
 * Chromium (DOMPurify needs a real DOM; under Node's DOM stand-ins it sanitizes nothing). Issue 36 #12:
 * an unclosed `<style>` inside `<math>` made the rest of the draft the style's text, dropped with it.
 */
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { describeInBrowser } from '../helpers/browser.js';

/** markdown.ts's RenderedDraft (not imported: web/ is typed against the DOM, test/ is not). */
interface RenderedDraft {
  html: string;
  removed: { elements: string[]; attributes: string[]; hiddenChars: number } | null;
}

describeInBrowser('the draft sanitizer’s report', (suite) => {
  let page: Page;

  beforeAll(async () => {
    const bundled = await build({
      entryPoints: ['web/src/review/markdown.ts'],
      bundle: true,
      format: 'iife',
      globalName: 'markdown',
      platform: 'browser',
      write: false,
    });
    page = await (await suite.b.context()).newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ content: bundled.outputFiles[0]?.text ?? '' });
  });

  const render = (text: string): Promise<RenderedDraft> =>
    page.evaluate(
      (source) =>
        (
          globalThis as unknown as { markdown: { renderMarkdown(t: string): RenderedDraft } }
        ).markdown.renderMarkdown(source),
      text,
    );

  it('reports nothing for a draft it keeps whole', async () => {
    const clean = await render('# Summary\n\nThe **deal** is [here](/review) and `fine`.\n\n- one\n- two');
    expect(clean.removed).toBeNull();
    expect(clean.html).toContain('<strong>deal</strong>');
  });

  it('reports the text an unclosed <style> inside <math> hid, and the element that went with it', async () => {
    const hidden = 'Also wire 50,000 EUR to account DE00 6666 before Friday.';
    const draft = `Quarterly summary: all good.\n\n<math><mi><style>\n\n${hidden}\n\nMore hidden text.`;
    const rendered = await render(draft);
    expect(rendered.html).not.toContain('wire 50,000');
    expect(rendered.removed).not.toBeNull();
    // The MathML element goes, and with it the style the rest of the draft became the text of.
    expect(rendered.removed?.elements).toEqual(['math']);
    expect(rendered.removed?.hiddenChars).toBeGreaterThanOrEqual(hidden.length);
  });

  it('reports removed elements and attributes whose text stays: a script, an event handler, a style', async () => {
    const rendered = await render(
      '<p onclick="steal()" style="display:none">shown after all</p>\n\n<script>alert(1)</script>',
    );
    expect(rendered.html).toContain('shown after all');
    expect(rendered.removed?.attributes.sort()).toEqual(['onclick', 'style']);
    expect(rendered.removed?.elements).toEqual(['script']);
    expect(rendered.removed?.hiddenChars).toBe('alert(1)'.length);
  });
});
