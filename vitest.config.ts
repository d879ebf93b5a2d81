import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global.ts'],
    pool: 'forks',
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
  },
});
