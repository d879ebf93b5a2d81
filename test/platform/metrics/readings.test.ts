/** Gauges read at scrape time: a reading that fails or hangs is left out (NaN without labels) and counted; the scrape still answers. */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/platform/metrics/metrics.js';
import { parseMetrics } from './parse.js';

describe('readings taken at scrape time', () => {
  it('set their gauge; one that throws or takes over 2 s is left out (NaN without labels) and counted', async () => {
    const metrics = createMetrics({ defaults: false });
    metrics.addReading({ name: 'r3_test_ok', help: 'ok' }, (g) => g.set(7));
    metrics.addReading({ name: 'r3_test_by_kind', help: 'by kind', labelNames: ['kind'] }, () => {
      throw new Error('database down');
    });
    metrics.addReading({ name: 'r3_test_broken', help: 'broken' }, () => {
      throw new Error('database down');
    });
    metrics.addReading({ name: 'r3_test_stuck', help: 'stuck' }, () => new Promise<void>(() => undefined));
    const started = performance.now();
    const samples = parseMetrics(await metrics.render());
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(samples.value('r3_test_ok')).toBe(7);
    expect(samples.value('r3_test_broken')).toBeNaN();
    expect(samples.value('r3_test_stuck')).toBeNaN();
    expect(samples.keys().some((k) => k.startsWith('r3_test_by_kind'))).toBe(false);
    expect(samples.value('r3_metrics_collect_errors_total{metric="r3_test_broken"}')).toBe(1);
    expect(samples.value('r3_metrics_collect_errors_total{metric="r3_test_stuck"}')).toBe(1);
  });
});
