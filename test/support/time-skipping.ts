import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { payloadKeyRing, TEST_PAYLOAD_ENCRYPTION_KEYS } from '../../src/config.js';
import { encryptingDataConverter, failureConverterPath } from '../../src/temporal/payload-codec.js';
import { installRuntime, workflowsPath } from '../../src/temporal/worker.js';
import { searchAttributeKeys } from '../../contracts/search-attributes.js';

/**
 * The service's data converter with the test key ring: the environment's client and every test's Worker
 * seal and open payloads as the real ones do (`testWorker` gives it to each test's Worker).
 */
export const testDataConverter = encryptingDataConverter(payloadKeyRing.parse(TEST_PAYLOAD_ENCRYPTION_KEYS));

/**
 * Temporal's time-skipping test server, provisioned from Maven Central by scripts/provision-temporal.sh
 * (TEMPORAL_TEST_SERVER_PATH); without it the SDK downloads its own. One environment per test file.
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  installRuntime();
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    ...(path ? { server: { executable: { type: 'existing-path', path } } } : {}),
    client: { dataConverter: testDataConverter },
  });
  // Workflows upsert the operator-facing search attributes, so the test server must know them too.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.values(searchAttributeKeys).map((key) => [key.name, INDEXED_VALUE_TYPE[key.type]]),
    ),
  });
  return env;
}

/**
 * The file's environment, made before its first test and torn down after its last: `env()` in a test.
 * A getter, as the stack helpers give theirs, since the environment does not exist when the file loads.
 */
export function useTimeSkippingEnv(): () => TestWorkflowEnvironment {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(async () => env?.teardown());
  return () => env!;
}

/** A Worker on `env` for one test: the workflows bundled once, the service's data converter, `activities` on `taskQueue`. */
export async function testWorker(env: TestWorkflowEnvironment, taskQueue: string, activities: object): Promise<Worker> {
  return Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), dataConverter: testDataConverter, activities });
}

/** temporal.api.enums.v1.IndexedValueType numbers; the test server rejects the enum's string names. */
const INDEXED_VALUE_TYPE: Record<string, number> = { KEYWORD: 2, INT: 3, BOOL: 5, DATETIME: 6 };

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** The workflows bundled once per test file; a new Worker per test reuses it. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath, failureConverterPath, logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} } as never });
  return bundle;
}
