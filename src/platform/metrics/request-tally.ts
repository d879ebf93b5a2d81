/**
 * HTTP requests counted and timed by method, route pattern and status in plain numbers, and
 * exported at scrape time as a Prometheus counter and histogram (`r3_http_requests_total`,
 * `r3_http_request_duration_seconds`).
 *
 * Why not prom-client's own Counter and Histogram: every observation of theirs checks its labels,
 * hashes them into a key and looks the series up by it — on every request, several times the cost of
 * the counting itself. Here a request finds its series by three map lookups and adds to numbers; the
 * labels are written out only when Prometheus scrapes. The registry reads these two metrics as it
 * reads its own (`get()`: name, help, type and the samples).
 */
import type { Metric, Registry } from 'prom-client';

type Labels = { method: string; route: string; status: string };

interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative: `[i]` are those above bound i-1 up to bound i; the last, above every bound. */
  inBucket: Float64Array;
}

/** One exported sample, in the shape prom-client's registry renders. */
interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** Requests by method, route and status; `bounds` are the histogram's upper bounds in seconds, ascending. */
export class RequestTally {
  private readonly byRoute = new Map<string, Map<number, Map<string, Series>>>();
  private readonly all: Series[] = [];

  constructor(private readonly bounds: readonly number[]) {}

  /** Counts one request of `method` to `route` answered `status` after `seconds`. */
  observe(method: string, route: string, status: number, seconds: number): void {
    let statuses = this.byRoute.get(route);
    if (!statuses) {
      statuses = new Map();
      this.byRoute.set(route, statuses);
    }
    let methods = statuses.get(status);
    if (!methods) {
      methods = new Map();
      statuses.set(status, methods);
    }
    let series = methods.get(method);
    if (!series) {
      series = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        inBucket: new Float64Array(this.bounds.length + 1),
      };
      methods.set(method, series);
      this.all.push(series);
    }
    series.count++;
    series.sum += seconds;
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && seconds > (bounds[i] as number)) i++;
    (series.inBucket[i] as number)++;
  }

  /** Registers the counter `counter` and the histogram `histogram` of these requests in `registry`. */
  register(
    registry: Registry,
    counter: { name: string; help: string },
    histogram: { name: string; help: string },
  ): void {
    registry.registerMetric(this.metric(counter, 'counter', () => this.counts()));
    registry.registerMetric(this.metric(histogram, 'histogram', () => this.histogram(histogram.name)));
  }

  private metric(
    { name, help }: { name: string; help: string },
    type: 'counter' | 'histogram',
    values: () => Sample[],
  ): Metric {
    const reset = () => {
      this.byRoute.clear();
      this.all.length = 0;
    };
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset,
    } as unknown as Metric;
  }

  private counts(): Sample[] {
    return this.all.map((series) => ({ value: series.count, labels: series.labels }));
  }

  private histogram(name: string): Sample[] {
    const samples: Sample[] = [];
    for (const series of this.all) {
      let cumulative = 0;
      for (const [i, bound] of this.bounds.entries()) {
        cumulative += series.inBucket[i] as number;
        samples.push({
          value: cumulative,
          labels: { ...series.labels, le: bound },
          metricName: `${name}_bucket`,
        });
      }
      samples.push({
        value: series.count,
        labels: { ...series.labels, le: '+Inf' },
        metricName: `${name}_bucket`,
      });
      samples.push({ value: series.sum, labels: series.labels, metricName: `${name}_sum` });
      samples.push({ value: series.count, labels: series.labels, metricName: `${name}_count` });
    }
    return samples;
  }
}
