import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { ensureDevCertificate } from '../../src/dev/tls.js';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Exactly the bytes that arrived. */
  rawBody: Buffer;
  at: number;
}

/** What a path answers, in turn; the last answer repeats. */
export interface Answer {
  status: number;
  /** A Buffer for bytes that are not text (a NUL, invalid UTF-8). */
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Answer only after this long: a receiver still working when its caller dies. */
  holdMs?: number;
}

/**
 * A merchant's receiver on this machine: HTTPS with its own self-signed CA (separate from the API's), so
 * the service reaches it only when WEBHOOK_CA_FILE names that CA.
 * `host`: the address it listens on and its URLs name (loopback, as `localhost`, unless told); `dir`: where
 * its CA and certificate are kept, made there once, for a service started before the receiver (containers
 * given the CA file at start).
 */
export async function startReceiver(opts: { host?: string; dir?: string } = {}) {
  const host = opts.host ?? '127.0.0.1';
  const dir = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'webhook-receiver-'));
  const tls = await receiverCertificate(dir, host);
  const received: ReceivedWebhook[] = [];
  const scripts = new Map<string, Answer[]>();
  /** Requests of each path that arrived and are still open: held, their sender still waiting. */
  const open = new Map<string, number>();
  const server = https.createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = req.url ?? '/';
      received.push({ path: route, headers: req.headers, rawBody: Buffer.concat(chunks), at: Date.now() });
      open.set(route, (open.get(route) ?? 0) + 1);
      res.once('close', () => open.set(route, open.get(route)! - 1));
      const answers = scripts.get(route) ?? [{ status: 200, body: 'ok' }];
      const answer = answers.length > 1 ? answers.shift()! : answers[0];
      const reply = () => {
        res.writeHead(answer.status, answer.headers ?? { 'Content-Type': 'text/plain' });
        res.end(answer.body ?? '');
      };
      if (answer.holdMs) setTimeout(reply, answer.holdMs).unref();
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  let counter = 0;
  return {
    caFile: tls.caFile,
    /** A fresh path on this receiver, answering as told (200 by default). */
    url(answers?: Answer[]): string {
      const route = `/hooks/${++counter}`;
      if (answers) scripts.set(route, [...answers]);
      return `https://${host === '127.0.0.1' ? 'localhost' : host}:${port}${route}`;
    },
    at: (url: string) => received.filter((r) => r.path === new URL(url).pathname),
    /** How many requests to `url` are held open now (answered or cut off by their sender: no longer counted). */
    openAt: (url: string) => open.get(new URL(url).pathname) ?? 0,
    received,
    /** An outage: the port refuses connections until `recover`. */
    down: stopListening,
    recover: () => new Promise<void>((resolve) => server.listen(port, host, resolve)),
    close: () => (server.listening ? stopListening() : Promise.resolve()),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The receiver's CA and certificate (for `localhost`, and `host` when it is another address), made once under `dir`. */
export const receiverCertificate = (dir: string, host = '127.0.0.1') => ensureDevCertificate(dir, host === '127.0.0.1' ? ['localhost'] : ['localhost', host]);

/** Polls until `check` returns a value (not undefined/false), at most `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
