import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { DomainError } from '../../src/domain/errors.js';
import { toApiError } from '../../src/http/errors.js';
import { parse } from '../../src/domain/validation.js';
import { payInput } from '../../src/modules/checkout/pay.schemas.js';
import { payableSession, payCheckout } from '../../src/modules/checkout/pay.service.js';
import { simulatorProcessor } from '../../src/modules/processor/charges.simulator.js';
import { createSession, pay, payBody, sql } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { freePort as closedPort } from '../../src/dev/free-port.js'; // free now, so nothing listens on it


let unreachable: Client;
// Declared first, so it closes before the stack stops (hooks run in the order declared).
afterAll(async () => unreachable?.connection.close());
const stack = useStack();
const biz = useBusiness(stack);
beforeAll(async () => {
  // Nothing listens there: every call fails as a Temporal that is down does, and is retried the same way,
  // but for about half a second rather than the default twenty: a retry still pending when the
  // connection closes at the end would throw from its timer.
  const retries = makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 4, initialIntervalMs: () => 100 }));
  unreachable = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${await closedPort()}`, interceptors: [retries] }) });
});

describe('a payment while Temporal cannot be reached', () => {
  it('answers 503 service_unavailable rather than processing, and the session stays payable', async () => {
    const session = await createSession(stack, biz.testKey);
    const deps = { orm: stack.orm, temporal: unreachable, taskQueue: stack.config.temporal.taskQueue, processor: simulatorProcessor, waitMs: 200 };
    const started = Date.now();
    const err = await payCheckout(deps, await payableSession(deps, session.id), parse(payInput, payBody())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(toApiError(err)).toMatchObject({ type: 'service_unavailable', status: 503, message: 'The service is temporarily unavailable; please retry' });
    expect(Date.now() - started).toBeLessThan(5_000);

    const [row] = await sql(stack, 'select status from checkout_sessions where id = ?', [session.id]);
    expect(row.status).toBe('pending');
    const retried = await pay(stack, session.id);
    expect(retried.status).toBe(200);
    expect(retried.body.data.status).toBe('completed');
  });
});
