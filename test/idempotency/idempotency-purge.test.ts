import { randomUUID } from 'node:crypto';

import { useBusiness, useStack } from '../support/use-stack.js';
import { retentionScheduleId } from '../../contracts/workflow-ids.js';

const stack = useStack();
const biz = useBusiness(stack);

const keyRows = (key: string) => stack.orm.em.fork().execute('select 1 from idempotency_keys where key = ?', [key]);

describe('purge of expired Idempotency-Keys (the retention schedule)', () => {
  it('is scheduled hourly by the worker at start, and a run deletes expired keys only', async () => {
    const handle = stack.temporal.schedule.getHandle(retentionScheduleId(stack.config.temporal.taskQueue));
    const description = await handle.describe();
    expect(description.spec.intervals?.[0]?.every).toBe(3_600_000);
    expect(description.action).toMatchObject({ workflowType: 'retentionWorkflow' });

    const expired = randomUUID();
    const fresh = randomUUID();
    for (const key of [expired, fresh]) {
      const res = await stack.http.post(
        '/api/checkout/sessions',
        { description: 'Order', customer: { email: 'b@example.com' }, items: [{ name: 'W', price: 1, quantity: 1 }] },
        { key: biz.testKey, headers: { 'Idempotency-Key': key } },
      );
      expect(res.status).toBe(201);
    }
    await stack.orm.em.fork().execute(`update idempotency_keys set expires_at = now() - interval '1 second' where key = ?`, [expired]);

    await handle.trigger();
    for (let i = 0; i < 100 && (await keyRows(expired)).length; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await keyRows(expired)).toHaveLength(0);
    expect(await keyRows(fresh)).toHaveLength(1);
  });
});
