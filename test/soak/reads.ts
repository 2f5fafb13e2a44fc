/**
 * A merchant's dashboard polling while money moves: single reads of what it created, lists paged by
 * cursor (no row may appear on two pages) and by page number, balance, reserves and the event log,
 * at `/api` and `/api/v1`.
 */
import type { HttpResponse } from '../support/http.js';
import type { SoakClient } from './stats.js';
import { randomInt, sleep, type SoakContext } from './context.js';
import type { SoakBusiness } from './stack.js';

/** The balance route's own limit is 30 a minute per key; the final sweep needs a few of them too. */
const BALANCE_EVERY_MS = 6_000;

export async function readsLoop(ctx: SoakContext, biz: SoakBusiness): Promise<void> {
  let lastBalance = 0;
  for (let n = 0; !ctx.stopped(); n++) {
    const api = ctx.api();
    const prefix = n % 3 === 0 ? '/api/v1' : '/api';
    const get = (path: string) => api.get(`${prefix}${path}`, { key: biz.key, accept: [200] });
    await followCursor(ctx, api, biz, `${prefix}/checkout/sessions?limit=${2 + randomInt(5)}${n % 2 ? '&status=completed' : ''}`, (d) => d.items);
    await followCursor(ctx, api, biz, `${prefix}/reserves?limit=${1 + randomInt(4)}`, (d) => d.items);
    const one = <T>(list: T[]) => list[randomInt(list.length)];
    if (biz.sessions.length) await get(`/checkout/sessions/${one(biz.sessions)}`);
    if (biz.refunds.length) await get(`/refunds/${one(biz.refunds)}`);
    if (biz.withdrawals.length) await get(`/withdrawals/${one(biz.withdrawals)}`);
    await get(`/refunds?limit=5&page=${1 + randomInt(3)}`);
    await get(`/withdrawals?limit=5&page=${1 + randomInt(3)}${n % 2 ? '&status=cancelled' : ''}`);
    await get('/reserves/summary');
    await get('/reserves/config');
    await get(`/webhooks/events?limit=5&page=${1 + randomInt(2)}`);
    if (biz.sessions.length) await api.get(`/checkout/${one(biz.sessions)}`, { accept: [200] });
    if (Date.now() - lastBalance > BALANCE_EVERY_MS) {
      lastBalance = Date.now();
      await get('/balance');
    }
    await sleep(100);
  }
}

/** Follows `nextCursor` for up to four pages; a row on two pages is a broken cursor. */
async function followCursor(ctx: SoakContext, api: SoakClient, biz: SoakBusiness, first: string, items: (data: any) => { id: string }[]): Promise<void> {
  const seen = new Set<string>();
  let path: string | null = first;
  for (let page = 0; path && page < 4; page++) {
    const res: HttpResponse = await api.get(path, { key: biz.key, accept: [200] });
    if (res.status !== 200) return;
    const data = res.body.data;
    for (const { id } of items(data)) {
      if (seen.has(id)) ctx.stats.problem(`${id} appeared on two pages of ${first}`, { api: api.name, path });
      seen.add(id);
    }
    const cursor = data.nextCursor ?? res.body.pagination?.nextCursor ?? null;
    path = cursor ? `${first}&cursor=${encodeURIComponent(cursor)}` : null;
  }
}
