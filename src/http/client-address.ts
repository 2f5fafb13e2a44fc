import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Context, Next } from 'koa';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An address as one spelling: IPv4-mapped IPv6 (`::ffff:10.0.0.1`, how a dual-stack socket shows IPv4) becomes IPv4. */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(text)) return null;
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/** The configured proxies (validated at start-up) as ranges; a bare address is a range of one. */
export function proxyRanges(list: readonly string[]): Range[] {
  return list.map((entry) => {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const address = parseAddress(entry)!;
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

function isProxy(address: ipaddr.IPv4 | ipaddr.IPv6, ranges: Range[]): boolean {
  return ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
}

/**
 * What a per-address budget counts against: an IPv4 address as is, an IPv6 address by its /64. One
 * subscriber or host is routinely given a whole /64 and may pick any source address in it, so keying
 * each IPv6 address alone would hand a card tester a fresh budget per request.
 */
export function addressBudgetKey(ip: string): string {
  // Dotted decimal as node writes it (what every request from an IPv4 peer carries) is its own key.
  if (isIPv4(ip)) return ip;
  const address = parseAddress(ip);
  if (!address) return ip || 'unknown';
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

export interface ForwardedRequest {
  /** The TCP peer. */
  peer: string;
  /** The client address the limits and logs use. */
  client: string;
  /** The scheme the client used, as the trusted proxy reports it; null when no trusted proxy says. */
  forwardedProto: string | null;
}

/**
 * Who is really asking. X-Forwarded-For and -Proto are anyone's to write, so they are read only when the
 * TCP peer is a configured proxy. Then X-Forwarded-For is read from the right, each entry having been
 * written by the proxy to its right, skipping configured proxies: the first other address is the
 * client. Entries further left were written by the client itself and are ignored.
 */
export function forwardedRequest(peer: string, forwardedFor: string, forwardedProto: string, ranges: Range[]): ForwardedRequest {
  const peerAddress = parseAddress(peer);
  if (!peerAddress || !isProxy(peerAddress, ranges)) return { peer, client: peerAddress?.toString() ?? peer, forwardedProto: null };
  let client = peerAddress;
  const hops = forwardedFor.split(',').map((hop) => hop.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseAddress(hops[i]);
    // Not an address: nothing to the left of it can be believed, so the last known hop stands.
    if (!hop) break;
    client = hop;
    if (!isProxy(hop, ranges)) break;
  }
  // The proxy next to us speaks last: with several values, the right-most is the one it wrote.
  const proto = forwardedProto.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean).at(-1) ?? null;
  return { peer, client: client.toString(), forwardedProto: proto };
}

/**
 * First in the chain: works out the client address and scheme once, and sets `ctx.ip` to that address
 * (Koa's own `proxy` setting would believe any X-Forwarded-For, so it is left off).
 */
export function clientAddress(trustedProxies: readonly string[]) {
  const ranges = proxyRanges(trustedProxies);
  // A connection's peer does not change, and a peer that is no configured proxy makes every request on the
  // connection the same answer, whatever its headers say: worked out once per connection, not per request.
  const direct = new WeakMap<object, ForwardedRequest | null>();
  const directRequest = (peer: string): ForwardedRequest | null => {
    const address = parseAddress(peer);
    return address && isProxy(address, ranges) ? null : Object.freeze(forwardedRequest(peer, '', '', ranges));
  };
  return async function forwarded(ctx: Context, next: Next): Promise<void> {
    const socket = ctx.req.socket;
    const peer = socket.remoteAddress ?? '';
    let known = direct.get(socket);
    if (known === undefined) direct.set(socket, (known = directRequest(peer)));
    const request = known ?? forwardedRequest(peer, ctx.get('X-Forwarded-For'), ctx.get('X-Forwarded-Proto'), ranges);
    ctx.request.ip = request.client;
    ctx.state.forwarded = request;
    await next();
  };
}

export const forwardedOf = (ctx: Context): ForwardedRequest => ctx.state.forwarded as ForwardedRequest;
