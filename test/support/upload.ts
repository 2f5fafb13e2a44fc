/**
 * A request whose body the test sends by hand, as slowly as it likes: a slow upload, a trickle, or a
 * body that never ends. It records when the service answered and when the connection closed, which is
 * what the intake's deadline and budgets are about (src/http/body.ts).
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { registry } from '../../src/ops/metrics.js';

export interface UploadOutcome {
  /** The status answered, or 0 when the connection closed with no answer. */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** From the request's start to its answer (or the close). */
  ms: number;
}

export interface Upload {
  /** Sends more of the body. */
  send(bytes: string | Buffer): void;
  /** Sends the rest and ends the request. */
  finish(rest?: string | Buffer): void;
  /** Stops sending and closes the connection. */
  abort(): void;
  answer: Promise<UploadOutcome>;
  /** When the connection closed, in ms from the request's start, whichever side closed it. */
  closed: Promise<number>;
}

export interface UploadOptions {
  key?: string;
  /** The length declared in Content-Length; none sends the body chunked. */
  declaredLength?: number;
  localAddress?: string;
  method?: string;
  /**
   * Ask to keep the connection open after the answer, as a pooling client does: a close is then the
   * service's decision, not the request's own `Connection: close`.
   */
  keepAlive?: boolean;
}

const ca = () => readFileSync(process.env.TEST_TLS_CA!);

/** Starts a request to `path` with its headers sent and no body yet. */
export function startUpload(origin: string, path: string, opts: UploadOptions = {}): Upload {
  const started = performance.now();
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  if (opts.declaredLength !== undefined) headers['Content-Length'] = String(opts.declaredLength);
  // A connection of its own either way: a trickle must not sit in a pool other requests wait on.
  const agent = opts.keepAlive ? new https.Agent({ keepAlive: true, maxSockets: 1 }) : false;
  const req = https.request(new URL(path, origin), { method: opts.method ?? 'POST', headers, ca: ca(), agent, localAddress: opts.localAddress });
  req.flushHeaders();
  const closed = new Promise<number>((resolve) => {
    req.once('socket', (socket) => socket.once('close', () => resolve(performance.now() - started)));
  });
  if (agent) void closed.then(() => agent.destroy());
  const answer = new Promise<UploadOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: Omit<UploadOutcome, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, ms: performance.now() - started });
    };
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON: kept as text for the assertion to show */
        }
        settle({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    // The service closed the connection without answering (or the test aborted it): no status.
    req.on('error', () => settle({ status: 0, headers: {}, body: null }));
    req.on('close', () => settle({ status: 0, headers: {}, body: null }));
  });
  return {
    send: (bytes) => void req.write(bytes),
    finish: (rest) => void req.end(rest),
    abort: () => req.destroy(),
    answer,
    closed,
  };
}

/**
 * A connection that sends its request line and headers one byte every `everyMs`, never finishing them.
 * Resolves with what the service wrote back (maybe nothing) and when the connection closed.
 */
export function trickleHeaders(origin: string, opts: { everyMs: number; localAddress?: string }): Promise<{ text: string; ms: number }> {
  const url = new URL(origin);
  const started = performance.now();
  const head = `POST /api/checkout/sessions HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nX-Slow: ${'a'.repeat(1000)}`;
  return new Promise((resolve) => {
    const tcp = net.connect({ host: '127.0.0.1', port: Number(url.port), localAddress: opts.localAddress });
    const socket = tls.connect({ socket: tcp, ca: ca(), servername: url.hostname });
    const received: Buffer[] = [];
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < head.length && socket.writable) socket.write(head[sent++]);
    }, opts.everyMs);
    socket.on('data', (c: Buffer) => received.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text: Buffer.concat(received).toString('utf8'), ms: performance.now() - started });
    });
  });
}

/** A gauge of this process's metrics (the stack runs in the test's process), e.g. the intake's bytes held. */
export async function gauge(name: string): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return Number(metric?.values[0]?.value ?? 0);
}
