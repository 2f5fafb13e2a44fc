/**
 * Stripe for the tests, with no call to Stripe itself: stripe-mock (built by scripts/provision-stripe-mock.sh,
 * started once per run by the global setup, its address in STRIPE_MOCK_URL), which checks every request
 * against Stripe's OpenAPI description of the pinned API version and answers with its fixtures; and, for
 * what a stateless mock cannot answer (an intent's state after a confirmation, a dispute's later state, a
 * refund still pending), `recordedStripe`: a proxy that still sends every request to the mock, so each is
 * checked, and answers the ones a test names with a recorded Stripe response instead.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { freePort } from '../../src/dev/free-port.js';

/** The stripe-mock binary: scripts/run.sh's, or, outside it (jest run by hand), the project's own script builds it or finds it cached. */
function stripeMockBinary(): string {
  if (process.env.STRIPE_MOCK_PATH) return process.env.STRIPE_MOCK_PATH;
  const script = path.join(import.meta.dirname, '../../scripts/provision-stripe-mock.sh');
  const exported = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const binary = /STRIPE_MOCK_PATH='([^']+)'/.exec(exported)?.[1];
  if (!binary) throw new Error(`scripts/provision-stripe-mock.sh printed no STRIPE_MOCK_PATH: ${exported}`);
  return binary;
}

/**
 * Stripe's OpenAPI description of API version `version`, as stripe-mock embeds it (its `spec3.json`,
 * stored whole in the binary by `go:embed`): the one document the connector's limits are read from.
 */
export function stripeApiDescription(version: string): any {
  const binary = readFileSync(stripeMockBinary());
  for (let at = binary.indexOf('{\n  "components"'); at >= 0; at = binary.indexOf('{\n  "components"', at + 1)) {
    const end = jsonEnd(binary, at);
    if (end < 0) continue;
    const description = JSON.parse(binary.subarray(at, end).toString('utf8'));
    if (description.info?.version === version && description.paths?.['/v1/disputes/{dispute}']) return description;
  }
  throw new Error(`stripe-mock embeds no OpenAPI description of ${version}`);
}

/** Where the JSON object opening at `start` ends (its braces balanced outside strings), or -1. */
function jsonEnd(bytes: Buffer, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return i + 1;
  }
  return -1;
}

/** stripe-mock on a free loopback port, refusing any Stripe-Version but the pinned one. */
export async function startStripeMock(): Promise<{ url: string; stop: () => Promise<void> }> {
  const binary = stripeMockBinary();
  const port = await freePort();
  // Its HTTPS listener stays on unless asked for elsewhere (an -http-addr alone keeps the default :12112, which
  // two runs on one machine would fight over): on a loopback port the system chooses, and unused.
  const args = ['-http-addr', `127.0.0.1:${port}`, '-https-addr', '127.0.0.1:', '-strict-version-check'];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`stripe-mock exited (${child.exitCode}): ${output}`);
    const up = await fetch(`${url}/v1/balance`, { headers: { Authorization: 'Bearer sk_test_up' } }).then(() => true, () => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error(`stripe-mock did not answer at ${url} within 30 s: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

export function stripeMockUrl(): string {
  const url = process.env.STRIPE_MOCK_URL;
  if (!url) throw new Error('STRIPE_MOCK_URL is not set: the global setup starts stripe-mock (test/support/global-setup.ts)');
  return url;
}

/** One request the connector sent, as the mock judged it. */
export interface SentRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  idempotencyKey: string | null;
  /** The mock's status for it: a 4xx is a request Stripe's API description refuses. */
  mockStatus: number;
  /** Answered by a recorded response rather than the mock's fixture. */
  recorded: boolean;
}

/** A recorded Stripe response: its status and body, which may be built from the mock's own answer and the request. */
export type Recorded = (request: { path: string; params: URLSearchParams; mock: Record<string, any> }) => RecordedAnswer | Promise<RecordedAnswer>;
type RecordedAnswer = { status: number; body: unknown };

export interface RecordedStripe {
  url: string;
  requests: SentRequest[];
  /** From now on, `method path` (a path pattern) is answered with `recorded`, the latest given first. */
  answer(method: string, pattern: RegExp, recorded: Recorded): void;
  /** Back to the mock's own answers, and an empty log. */
  reset(): void;
  close(): Promise<void>;
}

/** A proxy over stripe-mock: every request goes to the mock; those a test names are answered with a recorded response. */
export async function recordedStripe(mockUrl = stripeMockUrl()): Promise<RecordedStripe> {
  const requests: SentRequest[] = [];
  let answers: { method: string; pattern: RegExp; recorded: Recorded }[] = [];
  const server = createServer((req, res) => void proxy(req, res).catch((err) => res.writeHead(502).end(String(err))));
  async function proxy(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const url = new URL(req.url!, mockUrl);
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'stripe-version', 'idempotency-key']) {
      if (typeof req.headers[name] === 'string') headers[name] = req.headers[name] as string;
    }
    const answer = await fetch(new URL(url.pathname + url.search, mockUrl), { method: req.method, headers, body: req.method === 'GET' ? undefined : body });
    const text = await answer.text();
    const params = new URLSearchParams(req.method === 'GET' ? url.search : body);
    const match = answer.ok ? answers.find((a) => a.method === req.method && a.pattern.test(url.pathname)) : undefined;
    requests.push({ method: req.method!, path: url.pathname, params, idempotencyKey: headers['idempotency-key'] ?? null, mockStatus: answer.status, recorded: Boolean(match) });
    if (!match) {
      res.writeHead(answer.status, { 'Content-Type': 'application/json', 'Request-Id': 'req_mock' }).end(text);
      return;
    }
    // Awaited: a recorded answer may take its time, as a slow acquirer does.
    const recorded = await match.recorded({ path: url.pathname, params, mock: JSON.parse(text) });
    res.writeHead(recorded.status, { 'Content-Type': 'application/json', 'Request-Id': 'req_recorded' }).end(JSON.stringify(recorded.body));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (method, pattern, recorded) => void answers.unshift({ method, pattern, recorded }),
    reset: () => {
      answers = [];
      requests.splice(0);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
