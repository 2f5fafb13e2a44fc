import { readFileSync } from 'node:fs';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import https from 'node:https';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { bareHost, isPublicAddress, NonPublicAddressError, receiverLookup, type ResolveAll } from './private-address.rules.js';
import { receiverResolveAll } from './receiver-dns.js';

/** What one HTTP attempt gave; recorded on the attempt row as is, so its text is always storable. */
export interface PostOutcome {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  /** The first 1 KB of the response body, decoded as UTF-8 and made storable (see `storableText`). */
  responseBody: string | null;
  error: string | null;
  /** The receiver's `Retry-After` header, as sent (see retry-after.rules.ts). */
  retryAfter?: string | null;
}

// NUL, and unpaired surrogates: none comes out of a UTF-8 decode, but an injected transport's text might.
const UNSTORABLE_CHARACTERS = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A receiver's answer is whatever bytes it chose. Decoding as UTF-8 already turns invalid sequences
 * (and a character cut at the 1 KB mark) into U+FFFD, but a NUL byte decodes to U+0000, which
 * PostgreSQL's text type refuses: the attempt could not be recorded, the activity failed, and the
 * event was posted again. NUL becomes U+FFFD too, like any other byte that is not text.
 */
export function storableText(text: string): string;
export function storableText(text: string | null): string | null;
export function storableText(text: string | null): string | null {
  return text === null ? null : text.replace(UNSTORABLE_CHARACTERS, '\uFFFD');
}

export interface WebhookTransportOptions {
  /** PEM file of extra CAs trusted for receivers (added to the system roots, never replacing verification). */
  caFile?: string;
  allowPrivateUrls: boolean;
  timeoutMs?: number;
  resolveAll?: ResolveAll;
}

export const RESPONSE_BODY_LIMIT = 1024;
export const DELIVERY_TIMEOUT_MS = 10_000;

/** A kept-alive socket the receiver had already closed: the request never reached it, so it is sent again. */
const STALE_SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

/**
 * One POST, no redirects (node's https never follows them; a 3xx is simply not a 2xx), a hard deadline,
 * TLS always verified, and, unless private receivers are allowed, the SSRF guard on every connection.
 * Connections to a receiver are kept alive between deliveries: a TLS handshake per POST was much of a
 * delivery's cost (the benchmark's fan-out went from 35 to 41 deliveries/s). The guard runs when a
 * connection is made, so a kept socket is one already checked.
 */
export function createWebhookTransport(options: WebhookTransportOptions) {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // One TLS context for every connection: given only `ca`, node builds a context, parsing every root
  // certificate, for each new socket (a few percent of the worker's CPU under the fan-out benchmark).
  const ca = options.caFile ? [...tls.rootCertificates, readFileSync(options.caFile, 'utf8')] : undefined;
  const agent = new https.Agent({ secureContext: ca ? tls.createSecureContext({ ca }) : undefined, keepAlive: true });
  const guarded = !options.allowPrivateUrls;
  const lookup = receiverLookup(options.resolveAll ?? receiverResolveAll, guarded);

  return function post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome> {
    const started = performance.now();
    return new Promise((resolve) => {
      const attempt = new Attempt(started, resolve);
      let target: URL;
      try {
        target = receiverUrl(url, guarded);
      } catch (err) {
        attempt.fail(err as Error);
        return;
      }
      const payload = Buffer.from(body, 'utf8');
      const port = target.port || '443';
      attempt.phase = ipaddr.isValid(bareHost(target.hostname)) ? `connecting to ${target.hostname}:${port}` : `resolving ${target.hostname}`;
      // The phase moves on in the lookup's own callback: an answer already at hand (localhost) comes back
      // before the request's 'socket' event, too early for a listener on the socket to see it.
      const attemptLookup: LookupFunction = (hostname, opts, callback) =>
        lookup(hostname, opts, (err, address, family) => {
          if (!err) attempt.phase = `connecting to ${addressOf(Array.isArray(address) ? address[0].address : address)}:${port}`;
          (callback as (e: typeof err, a: typeof address, f?: number) => void)(err, address, family);
        });
      const options = { method: 'POST', agent, lookup: attemptLookup, headers: { ...headers, 'Content-Length': String(payload.length) } };
      const abort = send(target, options, payload, attempt);
      // One deadline for the attempt, a resend included.
      attempt.deadline = setTimeout(() => abort(new Error(`Timed out after ${timeoutMs / 1000} s ${attempt.phase}`)), timeoutMs);
    });
  };
}
export type WebhookTransport = ReturnType<typeof createWebhookTransport>;

/** An attempt settles once, with its duration: the first of the answer, an error and the deadline wins. */
class Attempt {
  settled = false;
  deadline: NodeJS.Timeout | undefined;
  /**
   * Where the attempt is, for a timeout's message: an operator reading "Timed out after 10 s connecting to
   * 203.0.113.7:443" looks at a firewall, "… waiting for the answer" at the receiver's own slowness.
   */
  phase = 'before sending';
  private readonly started: number;
  private readonly resolve: (outcome: PostOutcome) => void;

  constructor(started: number, resolve: (outcome: PostOutcome) => void) {
    this.started = started;
    this.resolve = resolve;
  }

  finish(outcome: Omit<PostOutcome, 'durationMs'>): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    this.resolve({ ...outcome, durationMs: Math.round(performance.now() - this.started) });
  }

  fail(err: Error, statusCode: number | null = null): void {
    this.finish({ ok: false, statusCode, responseBody: null, error: storableText(errorText(err)) });
  }
}

/**
 * An error as the attempt records it. A name with several addresses (localhost's two) that all refuse
 * fails with an AggregateError, whose own message is empty: its errors say what happened at each.
 */
function errorText(err: Error): string {
  // Read by its shape: Node's own AggregateError is of another realm than a test's vm context.
  const inner = (err as Partial<AggregateError>).errors;
  if (Array.isArray(inner) && inner.length) return inner.map((e: Error) => errorText(e)).join('; ');
  return err.message || String(err);
}

/** The receiver's URL, refused unless HTTPS, and, when guarded, unless a literal address is public. */
function receiverUrl(url: string, guarded: boolean): URL {
  const target = new URL(url);
  if (target.protocol !== 'https:') throw new Error('Refused: webhook URLs must be HTTPS');
  // A literal address never reaches `lookup`, so it is judged here.
  const host = bareHost(target.hostname);
  if (guarded && ipaddr.isValid(host) && !isPublicAddress(host)) throw new NonPublicAddressError(host, [host]);
  return target;
}

/** Sends the POST; returns how to abort whichever request is under way (the first, or its resend). */
function send(target: URL, options: https.RequestOptions, payload: Buffer, attempt: Attempt): (err: Error) => void {
  let req: ClientRequest;
  const request = (again: boolean) => {
    const sent = https.request(target, options);
    req = sent;
    sent.on('error', (err: NodeJS.ErrnoException) => {
      // Node's documented pattern for keep-alive: a reused socket reset before any answer is retried once.
      if (!again && !attempt.settled && sent.reusedSocket && STALE_SOCKET_ERRORS.has(err.code ?? '')) request(true);
      else attempt.fail(err);
    });
    sent.on('socket', (socket: tls.TLSSocket) => followSocket(socket, sent.reusedSocket, attempt));
    sent.on('finish', () => (attempt.phase = 'waiting for the answer'));
    sent.on('response', (res: IncomingMessage) => readAnswer(res, attempt));
    sent.end(payload);
  };
  request(false);
  return (err) => req.destroy(err);
}

/** An address as it stands before a port: an IPv6 one in brackets. */
const addressOf = (address: string) => (address.includes(':') ? `[${address}]` : address);

/** Names the attempt's phase as its connection gets there; a kept-alive connection is there already. */
function followSocket(socket: tls.TLSSocket, reused: boolean, attempt: Attempt): void {
  if (reused) {
    attempt.phase = 'sending the request';
    return;
  }
  // Each address tried in turn (a name with several): the phase names the one being tried.
  socket.on('connectionAttempt', (ip: string, port: number) => (attempt.phase = `connecting to ${addressOf(ip)}:${port}`));
  socket.once('connect', () => (attempt.phase = 'in the TLS handshake'));
  socket.once('secureConnect', () => (attempt.phase = 'sending the request'));
}

/** The receiver's status, `Retry-After` and the first 1 KB of its body: enough for the log. */
function readAnswer(res: IncomingMessage, attempt: Attempt): void {
  attempt.phase = 'reading the answer';
  const statusCode = res.statusCode ?? 0;
  const ok = statusCode >= 200 && statusCode < 300;
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () =>
    attempt.finish({
      ok,
      statusCode,
      responseBody: storableText(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8')),
      error: ok ? null : `HTTP ${statusCode}`,
      retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : null,
    });
  res.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    // The rest of a large answer is not waited for.
    if (size >= RESPONSE_BODY_LIMIT) {
      done();
      res.destroy();
    }
  });
  res.on('end', done);
  res.on('error', (err) => attempt.fail(err, statusCode));
}
