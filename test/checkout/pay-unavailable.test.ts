import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { DomainError } from '../../src/domain/errors.js';
import { toApiError } from '../../src/http/errors.js';
import { parse } from '../../src/domain/validation.js';
import { payInput } from '../../src/modules/checkout/pay.schemas.js';
import { payableSession, payCheckout } from '../../src/modules/checkout/pay.service.js';
import { simulatorProcessor } from '../../src/modules/processor/index.js';
import { createSession, payBody, payToCompletion, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { freePort as closedPort } from '../../src/dev/free-port.js'; // free now, so nothing listens on it
import { startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-dev-server.js';
import { testDataConverter } from '../support/time-skipping.js';
import path from 'node:path';


let unreachable: Client;
let comesBack: { client: Client; port: number; server?: TemporalDevServer };
// Declared first, so they close before the stack stops (hooks run in the order declared).
afterAll(async () => {
  await unreachable?.connection.close();
  await comesBack?.client.connection.close();
  await comesBack?.server?.stop();
});
const stack = useStack();
const biz = useBusiness(stack);
beforeAll(async () => {
  // Nothing listens there: every call fails as a Temporal that is down does, and is retried the same way,
  // but for about half a second rather than the default twenty: a retry still pending when the
  // connection closes at the end would throw from its timer.
  const retries = makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 4, initialIntervalMs: () => 100 }));
  unreachable = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${await closedPort()}`, interceptors: [retries] }) });
  // A Temporal that is down when the pay call answers and back a few seconds later, well inside the
  // client's own retries (about 20 s by default): what a call left running would reach.
  const port = await closedPort();
  comesBack = { port, client: new Client({ connection: Connection.lazy({ address: `127.0.0.1:${port}` }), dataConverter: testDataConverter }) };
});

describe('a payment while Temporal cannot be reached', () => {
  it('answers 503 service_unavailable rather than processing, and the session stays payable', async () => {
    const session = await createSession(stack, biz.testKey);
    const deps = { orm: stack.orm, temporal: unreachable, taskQueue: stack.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 200 };
    const started = Date.now();
    const err = await payCheckout(deps, await payableSession(deps, session.id), parse(payInput, payBody())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(toApiError(err)).toMatchObject({ type: 'service_unavailable', status: 503, message: 'The service is temporarily unavailable; please retry' });
    // Bounded by the call's own deadline and the admission check after it, not by the client's retries (20 s).
    expect(Date.now() - started).toBeLessThan(deps.waitMs + 2_000 + 5_000);

    const [row] = await sql(stack, 'select status from checkout_sessions where id = ?', [session.id]);
    expect(row.status).toBe('pending');
    // The 503 was true: nothing was charged and the customer's retry pays (waiting for the outcome on a slow machine).
    expect(await sql(stack, 'select count(*)::int as n from simulator_charges where idempotency_key = ?', [session.id])).toEqual([{ n: 0 }]);
    await payToCompletion(stack, session.id);
  }, 120_000);

  it('abandons its Temporal call when it answers 503: a Temporal back a moment later never hears of the payment', async () => {
    const session = await createSession(stack, biz.testKey);
    const deps = { orm: stack.orm, temporal: comesBack.client, taskQueue: stack.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 1_000 };
    const err = await payCheckout(deps, await payableSession(deps, session.id), parse(payInput, payBody())).catch((e: unknown) => e);
    expect(toApiError(err)).toMatchObject({ type: 'service_unavailable', status: 503 });
    comesBack.server = await startTemporalDevServer({
      dataDir: path.join(process.env.TEST_ROOT!, 'pay-unavailable-temporal'),
      port: comesBack.port,
      uiPort: null,
      cliPath: process.env.TEMPORAL_CLI_PATH,
    });
    // Past the client's whole retry budget: a call still retrying would have reached the server by now.
    await new Promise((r) => setTimeout(r, 25_000));
    await expect(comesBack.client.workflow.getHandle(`checkout-${session.id}`).describe()).rejects.toMatchObject({ name: 'WorkflowNotFoundError' });
    const [row] = await sql(stack, 'select status from checkout_sessions where id = ?', [session.id]);
    expect(row.status).toBe('pending');
  }, 120_000);
});
