import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery guard. Only globally routable unicast addresses are public; loopback,
 * RFC 1918 private, link-local, unique-local, carrier-grade NAT, multicast, reserved and the IPv6 ranges
 * that embed an IPv4 address (6to4, Teredo, NAT64) are not. IPv4-mapped IPv6 is judged as the IPv4 it maps.
 * The range table is ipaddr.js's, not hand-written parsing.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** `[::1]` (a URL's hostname) → `::1`. */
export const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

export type ResolveAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/**
 * The addresses of `hostname` that are not public. An IP literal is judged as is; a name by every address
 * it resolves to (one private answer is enough to refuse). A name that does not resolve has no offending
 * address: it cannot be reached at all, and delivery checks again.
 */
export async function nonPublicAddresses(hostname: string, resolveAll: ResolveAll): Promise<string[]> {
  const host = bareHost(hostname);
  if (ipaddr.isValid(host)) return isPublicAddress(host) ? [] : [host];
  let answers: { address: string }[];
  try {
    answers = await resolveAll(host);
  } catch {
    return [];
  }
  return answers.map((a) => a.address).filter((address) => !isPublicAddress(address));
}

export class NonPublicAddressError extends Error {
  readonly code = 'ERR_NON_PUBLIC_ADDRESS';
  constructor(hostname: string, addresses: string[]) {
    super(`Refused: ${hostname} resolves to a non-public address (${addresses.join(', ')})`);
  }
}

/**
 * A `lookup` for `https.request` through `resolveAll` (receiver-dns.ts: off the threadpool). Guarded, it
 * refuses when any answer is not public, and hands only the checked answers to the socket: the connection
 * goes to exactly the addresses that were checked, so a DNS answer that changes between the check and the
 * connect (rebinding) cannot slip through.
 */
export function receiverLookup(resolveAll: ResolveAll, guarded: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname).then(
      (answers) => {
        const refused = guarded ? answers.map((a) => a.address).filter((address) => !isPublicAddress(address)) : [];
        if (!answers.length) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        if (refused.length) return callback(new NonPublicAddressError(hostname, refused) as NodeJS.ErrnoException, '', 0);
        if (options.all) (callback as unknown as (e: null, a: typeof answers) => void)(null, answers);
        else callback(null, answers[0].address, answers[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
