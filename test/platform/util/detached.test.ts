import { describe, expect, it } from 'vitest';
import { detached } from '../../../src/platform/util/detached.js';
import { retainedBytes } from '../../helpers/heap.js';

/** 100 texts of 200 kB each, and of each the 36 characters at its end as `cut` gives them. */
const tails = (cut: (s: string) => string) => () =>
  Array.from({ length: 100 }, (_, i) => {
    const text = `${'x'.repeat(200_000)}${String(i).padStart(4, '0')}-2345-6789-abcd-ef0123456789ab`;
    return cut(text.slice(-36));
  });

describe('detached', () => {
  it('is the same string', () => {
    for (const s of ['', 'a', 'evt.1.run.5344.started', 'ünïcödé ☃ 𝄞', '\ud800 lone surrogate', '\t\n']) {
      expect(detached(s)).toBe(s);
    }
  });

  it('keeps alive only its own characters, where a plain slice keeps its whole text', () => {
    // The control shows the measure sees a kept text: 100 × 200 kB.
    expect(retainedBytes(tails((s) => s))).toBeGreaterThan(15_000_000);
    expect(retainedBytes(tails(detached))).toBeLessThan(1_000_000);
  });
});
