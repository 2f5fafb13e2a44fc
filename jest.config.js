// Jest runs the TypeScript sources as native ES modules (MikroORM v7 ships ESM only), transformed by SWC.
const faults = process.env.PAYMENTS_TEST_FAULTS === '1';

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  // The fault suite (test/faults: real processes SIGKILLed, PostgreSQL and Temporal restarted) takes
  // about four minutes on two cores and is timing-sensitive under the default run's parallel workers, so
  // `npm test` leaves it out; `npm run test:faults` sets PAYMENTS_TEST_FAULTS=1 and runs only it.
  testMatch: [faults ? '<rootDir>/test/faults/**/*.test.ts' : '<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: faults ? ['/node_modules/'] : ['/node_modules/', '<rootDir>/test/faults/'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 60_000,
  maxWorkers: 2,
};
