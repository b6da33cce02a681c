/** Three tiers, one run: unit specs beside the code (src/, bench/), medium and e2e specs under test/ against a real PostgreSQL. */
module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  testRegex: '((src|bench)/.*\\.spec\\.ts|test/.*\\.(e2e|medium)-spec\\.ts)$',
  transform: { '^.+\\.ts$': 'ts-jest' },
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Every answer of every test app is checked against the OpenAPI document (test/support/contract-recorder.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/contract-check.ts'],
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
