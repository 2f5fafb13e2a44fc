import { newId, newRequestId, newSessionId } from '../../src/domain/ids.js';

describe('ids', () => {
  it('session ids are UUIDv7, unique, and sort in the order they were made, within one millisecond too', () => {
    const ids = Array.from({ length: 20_000 }, () => newSessionId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Their time part is now, to the millisecond.
    const msecs = parseInt(ids[ids.length - 1].replaceAll('-', '').slice(0, 12), 16);
    expect(Math.abs(msecs - Date.now())).toBeLessThan(5_000);
  });

  it('prefixed ids are <prefix>_<32 hex>, unique and time-ordered', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('item'));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toMatch(/^item_[0-9a-f]{32}$/);
    expect(newRequestId()).toMatch(/^req_[0-9a-f]{32}$/);
  });
});
