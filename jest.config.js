/**
 * Three tiers, one run (`npm test`), each also on its own (`npm run test:unit|test:medium|test:e2e`,
 * or `npx jest --selectProjects <name>`):
 * - unit: specs beside the code (src/, bench/, and the test helpers' own in test/support/); no
 *   database, no test app, nothing started;
 * - medium and e2e: specs under test/ against a real PostgreSQL, every test app's answers checked
 *   against the OpenAPI document (test/support/contract-check.ts).
 *
 * The databases are started by a *project's* global setup: Jest runs a project's globalSetup only
 * when at least one test of that project is selected, and runs each distinct module once per
 * run, so a run of unit specs alone starts no PostgreSQL, and a run of medium and e2e specs
 * starts them once: a set per worker. testTimeout, maxWorkers and reporters are global options:
 * they stay at the top level.
 *
 * TypeScript is compiled by swc (`.swcrc`), file by file without type checks: `npm run typecheck`
 * checks types once for the whole tree, where a type-checking transform did it again per file.
 *
 * Time: a test that waits on real time waits on a condition (`eventually`) with a deadline sized
 * for a machine twice as slow as this one at its busiest, and returns as soon as the condition
 * holds; testTimeout is only the backstop behind those deadlines, never the deadline itself.
 * `.ci/busy` runs the tests that wait on time again with every CPU otherwise busy to prove it.
 */
const common = {
  rootDir: __dirname,
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: { '^.+\\.ts$': '@swc/jest' },
  testEnvironment: 'node',
  // The SDK (sdk/src) imports its own modules as ES modules do, with `.js`: resolved to its sources.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};

const withDatabase = {
  ...common,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Each worker's own databases (global setup starts a set per worker).
  setupFiles: ['<rootDir>/test/support/worker-databases.ts'],
  // Every answer of every test app is checked against the OpenAPI document (test/support/contract-recorder.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/contract-check.ts'],
};

module.exports = {
  rootDir: __dirname,
  // Files run side by side, each worker on PostgreSQL of its own (test/support/global-setup.ts).
  // Most of a file's time is waiting (on PostgreSQL, child processes, conditions), so two workers
  // pay on two cores, where Jest's default (one fewer than the cores) would run one file at a time.
  // JEST_MAX_WORKERS (or --maxWorkers, or -i) says otherwise.
  maxWorkers: Number(process.env.JEST_MAX_WORKERS) || Math.max(2, require('node:os').availableParallelism()),
  testTimeout: 180_000,
  reporters: ['default', '<rootDir>/test/support/timing-reporter.js', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    { ...common, displayName: 'unit', testRegex: '/(src|bench|test/support|sdk/test)/.*\\.spec\\.ts$' },
    { ...withDatabase, displayName: 'medium', testRegex: '/test/medium/.*\\.medium-spec\\.ts$' },
    { ...withDatabase, displayName: 'e2e', testRegex: '/test/e2e/.*\\.e2e-spec\\.ts$' },
  ],
};
