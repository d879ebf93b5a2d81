/**
 * The variable tables of README.md and docs/operations.md are rendered from the declarations in
 * src/platform/config.ts (`configTable`), so a variable added, changed or removed there must be in
 * the docs too. `R3_WRITE_DOCS=1 npx vitest run test/platform/config-docs.test.ts` rewrites them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, configTable } from '../../src/platform/config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const END = '<!-- /config-table -->';

function between(file: string, doc: 'readme' | 'operations'): { text: string; table: string } {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const start = `<!-- config-table:${doc} (generated from src/platform/config.ts) -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(END, from);
  expect(from, `${file} lacks ${start}`).toBeGreaterThanOrEqual(0);
  expect(to, `${file} lacks ${END}`).toBeGreaterThan(from);
  const table = text.slice(from + start.length, to).trim();
  if (process.env.R3_WRITE_DOCS === '1') {
    writeFileSync(
      path.join(ROOT, file),
      `${text.slice(0, from + start.length)}\n${configTable(doc)}\n${text.slice(to)}`,
    );
    return { text, table: configTable(doc) };
  }
  return { text, table };
}

describe('the configuration tables', () => {
  it('README.md lists every variable but the OpenTelemetry ones, as config.ts declares them', () => {
    expect(between('README.md', 'readme').table).toBe(configTable('readme'));
  });

  it('docs/operations.md lists the OpenTelemetry ones', () => {
    expect(between('docs/operations.md', 'operations').table).toBe(configTable('operations'));
  });

  it('between them, every variable r3 reads, once', () => {
    const rows = [configTable('readme'), configTable('operations')]
      .join('\n')
      .split('\n')
      .flatMap((line) => /^\| `([A-Z0-9_]+)` \|/.exec(line)?.[1] ?? []);
    expect(rows.toSorted()).toEqual([...CONFIG_VARIABLES].toSorted());
  });
});
