/**
 * What other code uses of the events module (the event log every money move records into): the rest is the
 * module's own, and eslint.config.js refuses an import of it from outside (docs/architecture.md, "A
 * module's face").
 */
export { eventsEntities } from './entities.js';
export { eventSummary } from './event-summary.rules.js';
export { EVENT_TYPES, Event } from './event.entity.js';
export type { EventType } from './event.entity.js';
export { recordEvent } from './event.service.js';
