import { newId, newRequestId, newSessionId } from '../../src/domain/ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msecsOf = (id: string) => parseInt(id.replaceAll('-', '').slice(0, 12), 16);
const bitsOf = (id: string) => BigInt(`0x${id.replaceAll('-', '')}`);

/** Session ids made until at least `count` of them fall in one millisecond: those. */
function sameMillisecond(count: number): string[] {
  for (;;) {
    const byMs = new Map<number, string[]>();
    for (let i = 0; i < 4 * count; i++) {
      const id = newSessionId();
      const group = byMs.get(msecsOf(id)) ?? [];
      group.push(id);
      if (group.length === count) return group;
      byMs.set(msecsOf(id), group);
    }
  }
}

describe('ids', () => {
  it('session ids are UUIDv7, unique, and sort by the millisecond they were made in', () => {
    const ids = Array.from({ length: 20_000 }, () => newSessionId());
    expect(new Set(ids).size).toBe(ids.length);
    const msecs = ids.map(msecsOf);
    expect([...msecs].sort((a, b) => a - b)).toEqual(msecs);
    for (const id of ids.slice(0, 50)) expect(id).toMatch(UUID_V7);
    // Their time part is now, to the millisecond.
    expect(Math.abs(msecs[msecs.length - 1] - Date.now())).toBeLessThan(5_000);
  });

  it('a session id, the hosted page’s only credential, has 74 random bits: rand_a and rand_b all vary within one millisecond', () => {
    // 64 ids made in one millisecond share their timestamp, version and variant; every other bit must
    // differ between some two of them (a bit that is random fails this with probability 2^-63).
    const ids = sameMillisecond(64);
    const all = ids.map(bitsOf);
    const ones = all.reduce((a, b) => a | b);
    const zeros = all.reduce((a, b) => a & b);
    const varying = ones ^ zeros;
    const count = varying.toString(2).split('').filter((bit) => bit === '1').length;
    expect(count).toBe(74);
    // Exactly rand_a (bits 64-75 from the right) and rand_b (bits 0-61).
    const randA = ((1n << 12n) - 1n) << 64n;
    const randB = (1n << 62n) - 1n;
    expect(varying).toBe(randA | randB);
  });

  it('prefixed ids are <prefix>_<32 hex>, unique and time-ordered', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('item'));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toMatch(/^item_[0-9a-f]{32}$/);
    expect(newRequestId()).toMatch(/^req_[0-9a-f]{32}$/);
  });
});
