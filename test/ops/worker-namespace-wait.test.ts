import { randomUUID } from 'node:crypto';
import { msToTs } from '@temporalio/common/lib/time.js';
import { dependencyWait } from '../../src/main/dependency-wait.js';
import { connectTemporalFor, startWorker } from '../../src/main/runtime.js';
import { eventually } from '../support/payments.js';
import { useStack } from '../support/use-stack.js';
import { recordingLog } from '../support/recording-log.js';

/**
 * A worker is made only once Temporal describes its namespace. A server that answers the connect but not
 * that description (a loaded dev server whose SQLite read was interrupted, in CI; a cluster whose frontend
 * is up before its history service; a namespace an operator has not registered yet) is waited for as the
 * connect is, one warning a try, and the worker polls once it answers.
 */
const stack = useStack({}, { worker: false });

it('a worker whose namespace Temporal cannot describe yet waits for it, then runs', async () => {
  const namespace = `late-${randomUUID().slice(0, 8)}`;
  const config = { ...stack.config, temporal: { ...stack.config.temporal, namespace } };
  const { log, records } = recordingLog();
  const temporal = await connectTemporalFor(config);
  const what = `Temporal's namespace ${namespace} at ${config.temporal.address}`;
  const starting = startWorker({ config, orm: stack.orm, temporal, log, wait: dependencyWait({ log, timeoutMs: 120_000 }) });
  let worker: Awaited<typeof starting> | undefined;
  try {
    const waiting = await eventually('a warning that the worker waits for its namespace', () => records.find((r) => r.waitingFor === what), 60_000);
    expect(waiting).toMatchObject({ level: 40, msg: expect.stringContaining(`waiting for ${what}: `) });
    expect(waiting).not.toHaveProperty('err');

    await stack.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    worker = await starting;
    expect(worker.worker.getState()).toBe('RUNNING');
    expect(records.some((r) => r.waitingFor === what && r.level === 30 && String(r.msg).startsWith(`${what} answered after`))).toBe(true);
  } finally {
    await (worker ?? (await starting.catch(() => undefined)))?.stop();
    await temporal.connection.close();
  }
}, 180_000);
