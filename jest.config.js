// Jest runs the TypeScript sources as native ES modules (MikroORM v7 ships ESM only), transformed by SWC.
const faults = process.env.PAYMENTS_TEST_FAULTS === '1';

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // The merchant kit's packages from their sources (as the "@payments/source" export condition gives
    // tsc and tsx), so a fresh clone tests them without building dist/ first.
    '^@payments/(client|webhooks)$': '<rootDir>/packages/$1/src/index.ts',
  },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  // Two runs make the whole suite. The fault suite (test/faults: real processes SIGKILLed, PostgreSQL and
  // Temporal restarted) needs the machine to itself, one file at a time, so this run leaves it out and
  // `npm test` (scripts/run.sh test) runs it second with PAYMENTS_TEST_FAULTS=1 and --runInBand, which
  // selects only it; `npm run test:faults` runs that second run alone.
  testMatch: [faults ? '<rootDir>/test/faults/**/*.test.ts' : '<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: faults ? ['/node_modules/'] : ['/node_modules/', '<rootDir>/test/faults/'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  // A bound on a hung test, not a speed check (speed is `npm run bench`'s): tests that pay sessions through
  // the real worker took 40-90 s a file on a quiet machine, and past 60 s for one test on a loaded CI
  // machine (two stressed runs failed that way and on nothing else), so three minutes.
  testTimeout: 180_000,
  maxWorkers: 2,
};
