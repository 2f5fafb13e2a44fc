import { readFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, clientTypes } from '../../packages/client/scripts/generate.js';
import { EVENT_TYPES_FILE, eventTypes } from '../../packages/webhooks/scripts/generate.js';
import { apiDocument } from '../../src/api/openapi/document.js';

/**
 * The kit's committed types are what openapi-typescript makes of the document the service serves
 * today. A change to an operation, a schema or an event that was not followed by
 * `npm run generate:client` / `npm run generate:webhooks` fails here.
 */
describe('the kit’s generated types', () => {
  it('@payments/client: src/generated/api.ts matches the served document (npm run generate:client)', async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await clientTypes(apiDocument()));
  });

  it('@payments/webhooks: src/generated/events.ts matches its webhooks (npm run generate:webhooks)', async () => {
    expect(readFileSync(EVENT_TYPES_FILE, 'utf8')).toBe(await eventTypes(apiDocument()));
  });

  it('has one event type per event the service records', async () => {
    const { EVENT_TYPES } = await import('../../src/modules/events/event.entity.js');
    expect(Object.keys((apiDocument() as { webhooks: object }).webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) expect(readFileSync(EVENT_TYPES_FILE, 'utf8')).toContain(`"${type}": {`);
  });

  it('fails when the document changes', async () => {
    const doc = structuredClone(apiDocument()) as any;
    doc.components.schemas.Refund.properties.note = { type: 'string' };
    expect(await clientTypes(doc)).not.toBe(readFileSync(CLIENT_TYPES_FILE, 'utf8'));
  });
});
