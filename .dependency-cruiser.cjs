/**
 * The architecture's direction, checked in CI (`npm run check:deps`, issue 20):
 * - features build on the platform; the platform never imports a feature;
 * - machines/ is pure (xstate and zod): nothing from src/;
 * - a feature uses another feature only through that feature's index.ts (its contract);
 * - authentication does not import the HTTP layer, and only the HTTP layer maps errors to statuses;
 * - no import cycles.
 * src/main.ts, src/features.ts, src/migrations.ts and src/cli/ are the composition root: they know the
 * features.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-not-to-features',
      comment:
        'The platform is shared infrastructure: features register themselves with it, never the reverse.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(features/|features\\.ts$|migrations\\.ts$|main\\.ts$|cli/)' },
    },
    {
      name: 'machines-pure',
      comment: 'machines/ holds the pure state machines (xstate and zod only): no imports from src/.',
      severity: 'error',
      from: { path: '^machines/' },
      to: { path: '^src/' },
    },
    {
      name: 'feature-through-index',
      comment: "A feature imports another feature only through that feature's index.ts.",
      severity: 'error',
      from: { path: '^src/features/([^/]+)/' },
      to: {
        path: '^src/features/([^/]+)/',
        pathNot: ['^src/features/$1/', '^src/features/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'auth-not-to-http',
      comment: 'Authentication knows no transport: the HTTP pipeline calls it, never the reverse.',
      severity: 'error',
      from: { path: '^src/platform/auth/' },
      to: { path: '^src/platform/http/' },
    },
    {
      name: 'http-status-only-in-http',
      comment:
        "Errors are transport-neutral (src/platform/errors.ts); their HTTP statuses and headers are http/'s.",
      severity: 'error',
      from: { pathNot: '^src/platform/http/' },
      to: { path: '^src/platform/http/errors\\.ts$' },
    },
    {
      name: 'product-not-to-harness',
      comment: 'r3 itself does not depend on its tests, benchmarks or fakes.',
      severity: 'error',
      from: { path: '^(src|machines|client)/' },
      to: { path: '^(test|bench|fakes)/' },
    },
    {
      name: 'bench-not-to-test',
      comment: 'Benchmarks share fakes with the tests through fakes/, not by importing test/.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/' },
    },
    {
      name: 'fakes-standalone',
      comment: 'The fakes stand for outside services: they import neither the tests nor the benchmarks.',
      severity: 'error',
      from: { path: '^fakes/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'no-circular',
      comment:
        'Import cycles make start-up order and ownership unclear. A cycle closed only by type imports ' +
        '(erased at build) does not count.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
