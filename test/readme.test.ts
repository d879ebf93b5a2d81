/**
 * README.md is the product page (issue 37): what r3 is, the two commands, first calls, the
 * configuration, the CLI and links — under 250 lines, with figures kept in docs/performance.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

describe('README.md', () => {
  it('stays under 250 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThan(250);
  });

  it('links only to files that exist', () => {
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1] as string)
      .filter((target) => !/^(https?:|mailto:|#)/.test(target))
      .map((target) => target.split('#')[0] as string);
    expect(targets.length).toBeGreaterThan(5);
    expect(targets.filter((target) => !existsSync(path.join(ROOT, target)))).toEqual([]);
  });
});
