import dns from 'node:dns';
import type { ResolveAll } from './private-address.rules.js';

/**
 * How a receiver's name becomes addresses, without taking libuv's threadpool.
 *
 * Node's default lookup is getaddrinfo, which blocks one of the process's four threadpool threads for as
 * long as the name takes to resolve; the same four threads serve every other lookup, and the file system
 * and crypto work of the process. A receiver whose DNS does not answer holds a thread for the resolver's
 * timeout (5 s a try here), so a handful of deliveries to such names left every other receiver's lookup
 * waiting behind them: measured on this machine, 60 lookups of names that do not exist at once took 10 s,
 * and deliveries to a receiver on localhost timed out after 10 s "resolving localhost" meanwhile.
 *
 * So a receiver's name is asked of DNS through c-ares (`dns.Resolver`: sockets on the event loop, no
 * thread), both families at once, each with its own short timeout. `localhost` and names under it are
 * loopback without asking anyone (RFC 6761). Only a name DNS says does not exist goes on to getaddrinfo,
 * for /etc/hosts and the resolver's search domains, one lookup at a time per process, each name once, at most
 * LANE_WAITING_MAX names waiting: however many such names there are, they hold one thread, never the pool.
 */
/** Names DNS answered as not existing: worth a look in /etc/hosts and under the search domains. */
const NOT_IN_DNS = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

const LOOPBACK = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** The two ways of asking, apart so a test can stand in for DNS. */
export interface ReceiverDns {
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  getaddrinfo(name: string): Promise<{ address: string; family: number }[]>;
}

/** Names waiting for the getaddrinfo lane at most; past it a name is refused at once (EAI_AGAIN), and retried with its attempt. */
export const LANE_WAITING_MAX = 32;

export function resolveReceiversWith(dnsOf: ReceiverDns): ResolveAll {
  // The getaddrinfo lane: a promise chain, each lookup starting when the one before it has settled. A
  // name already in it is not asked twice (every delivery to it waits for the one lookup), and the lane
  // is bounded, so names that never resolve cannot queue without end behind a lookup that hangs.
  let lane: Promise<unknown> = Promise.resolve();
  const inLane = new Map<string, Promise<{ address: string; family: number }[]>>();
  const getaddrinfo = (name: string) => {
    const waiting = inLane.get(name);
    if (waiting) return waiting;
    if (inLane.size >= LANE_WAITING_MAX) {
      return Promise.reject(Object.assign(new Error(`getaddrinfo EAI_AGAIN ${name} (${LANE_WAITING_MAX} names waiting to be looked up)`), { code: 'EAI_AGAIN' }));
    }
    const lookup = () => dnsOf.getaddrinfo(name);
    const turn = lane.then(lookup, lookup).finally(() => inLane.delete(name));
    lane = turn.catch(() => undefined);
    inLane.set(name, turn);
    return turn;
  };

  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return LOOPBACK;
    const [v4, v6] = await Promise.allSettled([dnsOf.resolve4(name), dnsOf.resolve6(name)]);
    const answers = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (answers.length) return answers;
    const failures = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [r.reason as NodeJS.ErrnoException] : []));
    // A timeout or a refusing server is the answer: getaddrinfo would ask the same servers, slower.
    const unreachable = failures.find((err) => !NOT_IN_DNS.has(err.code ?? ''));
    if (unreachable) throw unreachable;
    return getaddrinfo(name);
  };
}

const resolver = new dns.promises.Resolver({ timeout: 2_000, tries: 2 });

export const receiverResolveAll: ResolveAll = resolveReceiversWith({
  resolve4: (name) => resolver.resolve4(name),
  resolve6: (name) => resolver.resolve6(name),
  getaddrinfo: (name) => dns.promises.lookup(name, { all: true, verbatim: true }),
});
