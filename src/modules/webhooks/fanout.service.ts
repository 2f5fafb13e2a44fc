import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { newId } from '../../domain/ids.js';
import { Event } from '../events/event.entity.js';
import { deliveryBody } from './delivery.view.js';
import { startWorkflowOnce } from '../outbox/workflow-start.rules.js';
import { deliveryWorkflowStart } from './delivery.workflow.js';
import { subscribesTo } from './event-subscriptions.rules.js';
import { WebhookDelivery, WebhookEndpoint } from './webhook.entity.js';

export interface FanoutDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  log: Logger;
  retryDelaysMs?: number[];
  /** Test seam: runs after the deliveries are committed and before any workflow starts (crash tests). */
  afterDeliveriesCommitted?: () => Promise<void> | void;
}

/**
 * The outbox handler for `event.fanout`. Safe to run any number of times for one event:
 * 1. one delivery (generation 0) per enabled, subscribed endpoint of the event's business and mode,
 *    inserted with ON CONFLICT DO NOTHING on (event, endpoint, generation), so a re-run creates none twice;
 * 2. a workflow for every generation-0 delivery that has not begun, started with a deterministic id and
 *    REJECT_DUPLICATE, so a re-run never starts one twice.
 * The outbox row is marked dispatched only after both, so a process that dies in between leaves it for
 * the relay, which repeats the whole handler.
 */
export function createEventFanout(deps: FanoutDeps) {
  return async function fanOut(message: { eventId: string }): Promise<void> {
    const em = deps.orm.em.fork();
    const event = await em.findOne(Event, { id: message.eventId });
    if (!event) {
      deps.log.warn({ eventId: message.eventId }, 'event to fan out does not exist');
      return;
    }
    const endpoints = await em.find(WebhookEndpoint, {
      businessId: event.businessId,
      livemode: event.livemode,
      enabled: true,
      deletedAt: null,
      // An endpoint receives what happens while it exists, even if the fan-out itself was delayed.
      createdAt: { $lte: event.createdAt },
    });
    const body = deliveryBody(event);
    for (const endpoint of endpoints.filter((e) => subscribesTo(e.events, event.type))) {
      await em.execute(
        `insert into webhook_deliveries
           (id, event_id, endpoint_id, business_id, livemode, generation, status, body, attempt_count, created_at, updated_at)
         values (?, ?, ?, ?, ?, 0, 'pending', ?, 0, now(), now())
         on conflict (event_id, endpoint_id, generation) do nothing`,
        [newId('whd'), event.id, endpoint.id, event.businessId, event.livemode, body],
        'run',
      );
    }
    await deps.afterDeliveriesCommitted?.();
    const unstarted = await em.find(WebhookDelivery, { eventId: event.id, generation: 0, status: 'pending', attemptCount: 0 });
    for (const delivery of unstarted) {
      await startWorkflowOnce(deps.temporal, deps.taskQueue, deliveryWorkflowStart(delivery, deps.retryDelaysMs));
    }
  };
}
