/**
 * PAYLOAD_REQUIRE_SEALED on the real stack: a worker of a deployment whose histories are all sealed
 * refuses a workflow input written around the service, in the clear, and still runs what the service
 * itself starts.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { EncryptionCodec, UNSEALED_REFUSED } from '../../src/temporal/payload-codec.js';
import { eventually } from '../support/payments.js';
import { useStack } from '../support/use-stack.js';

const stack = useStack({ PAYLOAD_REQUIRE_SEALED: 'true' });

/** The reserve release of a reserve that does not exist: run, it ends at once with nothing to release. */
const input = () => [{ reserveId: `res_${randomUUID().replaceAll('-', '')}`, releaseAt: new Date(Date.now() - 1000).toISOString() }];

describe('a worker with PAYLOAD_REQUIRE_SEALED=true', () => {
  it('runs a workflow the service starts: its input is sealed', async () => {
    const handle = await stack.temporal.workflow.start('reserveReleaseWorkflow', {
      workflowId: `sealed-${randomUUID()}`,
      taskQueue: stack.config.temporal.taskQueue,
      args: input(),
    });
    expect(await handle.result()).toBe('nothing_to_release');
  });

  it('refuses one whose input is in the clear: its workflow task fails with the reason, and nothing runs', async () => {
    // A client with no codec, as `temporal workflow start --input` without --codec-endpoint would be.
    const plain = new Client({ connection: stack.temporal.connection, namespace: stack.config.temporal.namespace });
    const handle = await plain.workflow.start('reserveReleaseWorkflow', {
      workflowId: `plain-${randomUUID()}`,
      taskQueue: stack.config.temporal.taskQueue,
      args: input(),
    });
    try {
      const failed = await eventually('the workflow task to fail', async () => {
        const { events } = await handle.fetchHistory();
        return events?.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes;
      });
      // The failure's message is sealed like any other (failure converter): open it with the stack's key ring.
      const [opened] = await new EncryptionCodec(stack.config.temporal.encryptionKeys!).decode([failed.failure!.encodedAttributes!]);
      expect(JSON.parse(Buffer.from(opened.data!).toString()).message).toContain(UNSEALED_REFUSED);
      const { events } = await handle.fetchHistory();
      expect(events!.some((e) => e.activityTaskScheduledEventAttributes || e.markerRecordedEventAttributes || e.workflowExecutionCompletedEventAttributes)).toBe(false);
    } finally {
      await handle.terminate('test over');
    }
  });
});
