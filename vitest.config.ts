import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/setup/global.ts'],
    pool: 'forks',
    // Files run three at a time: most of a file's time is spent waiting on PostgreSQL, NATS, r3
    // processes or Chromium, so on a 2-core machine three files in flight finish sooner than one
    // (vitest's default here would be one: the cores less one).
    maxWorkers: 3,
    // Generous on purpose: tests wait on conditions, not sleeps, so these only bound a hang. Tests that
    // start r3 processes (the CLI, two-node tests) take 5-10 s per process on a 2-core machine under a
    // second full suite or a CPU burner; at 30 s, r3 org limits' five CLI calls timed out once in
    // such a run.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // expect.poll waits for a condition (a row to show, a run to move): like the timeouts above it
    // only bounds a hang. Its 1 s default failed browser tests on a loaded 2-core machine while the
    // page was still drawing its first answer.
    expect: { poll: { timeout: 20_000 } },
    projects: [
      // The platform's tests each get a fresh module graph (vitest's default): several watch or patch
      // process-wide state (lanes.test expects promise hooks off, which a shared worker had left on;
      // pool.test patches pg's and net's prototypes; tick-signal.test, setTimeout). Shared, a NATS
      // durable-consumer test also failed once (a redelivery counted 1), not explained.
      { extends: true, test: { name: 'platform', include: ['test/platform/**/*.test.ts'] } },
      // The rest share a worker's module graph from file to file (`isolate: false`): each file
      // starts its own app on its own database, so what it imports is loaded once per worker
      // instead of once per file (measured: 1.5 s of imports per file, a fifth of the suite). A spy a
      // failing test left on a shared prototype does not carry into the next file: vitest restores
      // every `vi.spyOn` after each file, isolated or not (checked with two files in one worker).
      {
        extends: true,
        test: {
          name: 'app',
          include: ['test/**/*.test.ts'],
          exclude: ['test/platform/**'],
          isolate: false,
        },
      },
    ],
  },
});
