/**
 * A receiver's name is resolved off libuv's threadpool (src/modules/webhooks/receiver-dns.ts): a
 * receiver whose DNS hangs must not hold back deliveries to every other receiver of the process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWebhookTransport } from '../../src/modules/webhooks/index.js';
import { LANE_WAITING_MAX, resolveReceiversWith, type ReceiverDns } from '../../src/modules/webhooks/receiver-dns.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const errno = (code: string) => Object.assign(new Error(`queryA ${code}`), { code });

/** A DNS that answers as told, counting the getaddrinfo calls under way at once. */
function fakeDns(answer: Partial<Record<'v4' | 'v6', string[] | string>>, hosts: Record<string, string> = {}) {
  const calls = { getaddrinfo: 0, atOnce: 0, mostAtOnce: 0 };
  const ask = (a: string[] | string | undefined) => (Array.isArray(a) ? Promise.resolve(a) : Promise.reject(errno(a ?? 'ENOTFOUND')));
  const dns: ReceiverDns = {
    resolve4: async () => ask(answer.v4),
    resolve6: async () => ask(answer.v6),
    getaddrinfo: async (name) => {
      calls.getaddrinfo++;
      calls.mostAtOnce = Math.max(calls.mostAtOnce, ++calls.atOnce);
      await new Promise((r) => setTimeout(r, 20));
      calls.atOnce--;
      if (!hosts[name]) throw errno('ENOTFOUND');
      return [{ address: hosts[name], family: 4 }];
    },
  };
  return { dns, calls };
}

describe("a receiver's name", () => {
  it('localhost and names under it are loopback, asked of no one', async () => {
    const { dns, calls } = fakeDns({ v4: 'ETIMEOUT' });
    const resolve = resolveReceiversWith(dns);
    for (const name of ['localhost', 'LOCALHOST.', 'hooks.localhost']) {
      expect(await resolve(name)).toEqual([
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]);
    }
    expect(calls.getaddrinfo).toBe(0);
  });

  it("takes DNS's answers of both families, and never getaddrinfo then", async () => {
    const { dns, calls } = fakeDns({ v4: ['93.184.216.34'], v6: 'ENODATA' });
    expect(await resolveReceiversWith(dns)('shop.example')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    const both = fakeDns({ v4: ['93.184.216.34'], v6: ['2606:2800:220:1::1'] });
    expect(await resolveReceiversWith(both.dns)('shop.example')).toHaveLength(2);
    expect(calls.getaddrinfo + both.calls.getaddrinfo).toBe(0);
  });

  it('a DNS that times out is the answer: the attempt fails with it, and getaddrinfo is not asked', async () => {
    const { dns, calls } = fakeDns({ v4: 'ETIMEOUT', v6: 'ETIMEOUT' });
    await expect(resolveReceiversWith(dns)('slow.example')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(calls.getaddrinfo).toBe(0);
  });

  it('a name DNS does not know is looked up in /etc/hosts and the search domains, one lookup at a time, each name once', async () => {
    const { dns, calls } = fakeDns({}, { receiver: '10.0.0.7' });
    const resolve = resolveReceiversWith(dns);
    const names = ['receiver', 'gone-1.example', 'gone-2.example', 'gone-3.example', 'receiver'];
    const results = await Promise.allSettled(names.map((name) => resolve(name)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseFulfilledResult<unknown>).value).toEqual([{ address: '10.0.0.7', family: 4 }]);
    expect((results[4] as PromiseFulfilledResult<unknown>).value).toEqual([{ address: '10.0.0.7', family: 4 }]);
    expect(calls.getaddrinfo).toBe(4); // 'receiver' was asked once for both
    expect(calls.mostAtOnce).toBe(1);
    // Asked again once the first lookup is over.
    await resolve('receiver');
    expect(calls.getaddrinfo).toBe(5);
  });

  it(`the lane holds at most ${LANE_WAITING_MAX} names: past them a name is refused at once, to be tried again with its attempt`, async () => {
    const { dns, calls } = fakeDns({});
    const resolve = resolveReceiversWith(dns);
    const names = Array.from({ length: LANE_WAITING_MAX + 8 }, (_, i) => `gone-${i}.example`);
    const results = await Promise.allSettled(names.map((name) => resolve(name)));
    const codes = results.map((r) => (r as PromiseRejectedResult).reason.code);
    expect(codes.filter((c) => c === 'ENOTFOUND')).toHaveLength(LANE_WAITING_MAX);
    expect(codes.filter((c) => c === 'EAI_AGAIN')).toHaveLength(8);
    expect(calls.getaddrinfo).toBe(LANE_WAITING_MAX);
    // The lane empties: a name is taken again.
    await expect(resolve('gone-0.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('a delivery while every threadpool thread is taken', () => {
  let receiver: Receiver;
  let fifo: string;
  let blocked: Promise<unknown>[] = [];
  beforeAll(async () => {
    receiver = await startReceiver();
    fifo = path.join(mkdtempSync(path.join(os.tmpdir(), 'threadpool-')), 'fifo');
    execFileSync('mkfifo', [fifo]);
    // Opening a FIFO for reading blocks until a writer comes: four such opens hold libuv's four threads,
    // as four lookups of names whose DNS never answers do.
    blocked = Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }, () => fsp.open(fifo, 'r').then((h) => h.close()));
  });
  afterAll(async () => {
    closeSync(openSync(fifo, 'w')); // the writer: every blocked open returns
    await Promise.all(blocked);
    await receiver?.close();
  });

  it('still reaches a receiver on localhost: its name is never a thread', async () => {
    const post = createWebhookTransport({ caFile: receiver.caFile, allowPrivateUrls: true, timeoutMs: 5_000 });
    const url = receiver.url([{ status: 204 }]);
    const outcome = await post(url, { 'Content-Type': 'application/json' }, '{}');
    expect(outcome).toMatchObject({ ok: true, statusCode: 204, error: null });
    expect(receiver.at(url)).toHaveLength(1);
  });
});
