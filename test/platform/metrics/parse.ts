/** A small reader of the Prometheus text format for tests: `name{labels}` → value. */

export interface Samples {
  /** The sample's value; 0 when absent (a counter not yet incremented). */
  value(key: string): number;
  has(key: string): boolean;
  keys(): string[];
  /** Metric names declared by `# TYPE` lines. */
  readonly names: string[];
}

export function parseMetrics(text: string): Samples {
  const values = new Map<string, number>();
  const names: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) names.push(line.split(' ')[2] as string);
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    // prom-client writes labels as name="value",… in the order they were declared.
    values.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return {
    value: (key) => values.get(key) ?? 0,
    has: (key) => values.has(key),
    keys: () => [...values.keys()],
    names,
  };
}
