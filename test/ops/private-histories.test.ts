/**
 * Private histories (docs/decisions.md): a payment's and a withdrawal's Temporal histories hold no customer name,
 * e-mail or payout destination in the clear (as the `temporal` CLI prints them, and as the SDK fetches
 * them), every payload is sealed by the codec, the codec endpoint on the admin port opens them for the
 * operator's token only, and the sealed history still replays through the codec.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { createLogger } from '../../src/log.js';
import { startOpsPort } from '../../src/main/ops-port.js';

import type { OpsServer } from '../../src/ops/ops-server.js';
import { encryptingDataConverter, failureConverterPath, payloadKeysFor } from '../../src/temporal/payload-codec.js';
import { workflowInterceptorModules, workflowsPath } from '../../src/temporal/worker.js';
import { CARDS, createSession, eventually, payToCompletion, payBody } from '../support/payments.js';
import { addWalletMethod, creditAvailable, testMode } from '../support/seed.js';
import { useStack } from '../support/use-stack.js';
import { encryptedPayloads, plainText, toWire } from '../support/history-payloads.js';
import { checkoutWorkflowId, withdrawalWorkflowId } from '../../contracts/workflow-ids.js';

const NAME = 'Grace Privatehopper';
const EMAIL = 'grace.private@customer.example';
const WALLET = 'payouts.private@merchant-owner.example';
const NOTES = 'Confidential payout note';
const SECRETS = [NAME, EMAIL, WALLET, NOTES];
const TOKEN = 'codec-operator-token-0123456789abcdef';
const UI_ORIGIN = 'http://localhost:8233';

let admin: OpsServer;
// Declared first, so the admin server closes before the stack stops (hooks run in the order declared).
afterAll(async () => admin?.close());
const stack = useStack({ CODEC_AUTH_TOKEN: TOKEN, CODEC_CORS_ORIGINS: UI_ORIGIN });
let codecUrl: string;
let checkoutId: string;
let withdrawalId: string;

beforeAll(async () => {
  const config = { ...stack.config, admin: { host: '127.0.0.1', port: 0 } };
  admin = await startOpsPort({ config, connections: { orm: stack.orm, temporal: stack.temporal }, log: createLogger('silent'), worker: false, codec: true });
  codecUrl = `http://127.0.0.1:${admin.port}/codec`;

  const biz = await stack.business();
  const session = await createSession(stack, biz.testKey, { customer: { email: EMAIL } });
  await payToCompletion(stack, session.id, payBody(CARDS.success, { name: NAME, email: EMAIL }));
  checkoutId = checkoutWorkflowId(session.id);

  await addWalletMethod(stack.orm, biz.id, WALLET);
  await creditAvailable(stack.orm, testMode(biz.id), 10_000);
  const body = { amount: 12.5, destinationType: 'wallet', destinationDetails: { walletEmail: WALLET }, notes: NOTES };
  const withdrawn = await stack.http.post('/api/withdrawals', body, { key: biz.testKey });
  expect(withdrawn.status).toBe(201);
  withdrawalId = withdrawalWorkflowId(withdrawn.body.data.id);
  // Started from the outbox just after the commit: wait until its input is in the history.
  await eventually('the withdrawal workflow started', () => stack.temporal.workflow.getHandle(withdrawalId).describe().catch(() => null));
}, 120_000);

const fetchHistory = (workflowId: string): Promise<History> => stack.temporal.workflow.getHandle(workflowId).fetchHistory();

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.env.TEMPORAL_CLI_PATH!,
    ['workflow', 'show', '--address', process.env.TEMPORAL_ADDRESS!, '--namespace', stack.config.temporal.namespace, '--output', 'json', ...args],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

/** The CLI's JSON with every base64 payload field (data, metadata values) also decoded, one string a line. */
function cliText(stdout: string): string {
  const out: string[] = [stdout];
  const walk = (value: unknown, key = '') => {
    if (typeof value === 'string' && (key === 'data' || key === 'metadata')) out.push(Buffer.from(value, 'base64').toString('utf8'));
    else if (value !== null && typeof value === 'object') {
      for (const [k, child] of Object.entries(value)) walk(child, key === 'metadata' ? 'metadata' : k);
    }
  };
  walk(JSON.parse(stdout));
  return out.join('\n');
}

describe('a history started through the API holds no personal data in the clear', () => {
  it.each([
    ['the checkout (pay with a name and an e-mail)', () => checkoutId],
    ['the withdrawal (to a wallet, with notes)', () => withdrawalId],
  ])('%s: `temporal workflow show --output json` shows none of it', async (_what, id) => {
    const shown = await cli('--workflow-id', id());
    expect(shown).toContain('"encryption-key-id"'); // the CLI saw the history, sealed
    // The CLI prints payload bytes as base64: read them too, so a plain payload would be caught.
    const readable = cliText(shown);
    for (const secret of SECRETS) expect(readable).not.toContain(secret);
    // The same command through the codec endpoint reads them: this check would see them if they were there.
    const decoded = cliText(await cli('--workflow-id', id(), '--codec-endpoint', codecUrl, '--codec-auth', `Bearer ${TOKEN}`));
    for (const secret of id() === checkoutId ? [NAME, EMAIL] : [WALLET, NOTES]) expect(decoded).toContain(secret);
  });

  it.each([['checkout', () => checkoutId], ['withdrawal', () => withdrawalId]])(
    'the %s history as the SDK fetches it: every payload sealed, no secret in any byte',
    async (_what, id) => {
      const history = await fetchHistory(id());
      const text = plainText(history);
      for (const secret of SECRETS) expect(text).not.toContain(secret);
      const { sealed, plain } = encryptedPayloads(history);
      // At least the workflow's input and its summary (the checkout also has the pay update, activities, results).
      expect(sealed.length).toBeGreaterThanOrEqual(id() === checkoutId ? 8 : 2);
      expect(plain).toEqual([]); // every payload outside search attributes goes through the codec
    },
  );
});

describe('the codec endpoint on the admin port', () => {
  const decode = (headers: Record<string, string>, body: unknown) =>
    fetch(`${codecUrl}/decode`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers }, body: JSON.stringify(body) });

  it('decodes the checkout history for the operator: the name and e-mail are back', async () => {
    const { sealed } = encryptedPayloads(await fetchHistory(checkoutId));
    const res = await decode({ authorization: `Bearer ${TOKEN}`, origin: UI_ORIGIN }, { payloads: sealed.map(toWire) });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    const out = (await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(out.payloads).toHaveLength(sealed.length);
    const texts = out.payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('\n');
    expect(texts).toContain(NAME);
    expect(texts).toContain(EMAIL);
    expect(Buffer.from(out.payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
  });

  it.each([
    ['no credential', {}],
    ['a wrong token', { authorization: 'Bearer not-the-operator-token-at-all-0000' }],
    ['the token without Bearer', { authorization: TOKEN }],
  ])('refuses a caller with %s: 401, nothing decoded', async (_what, headers) => {
    const { sealed } = encryptedPayloads(await fetchHistory(checkoutId));
    const res = await decode({ ...headers, origin: UI_ORIGIN }, { payloads: sealed.map(toWire) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    // The UI can read the refusal (CORS) and show it, rather than a network error.
    expect(res.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    const text = await res.text();
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it("answers the Web UI's CORS preflight for its origin only", async () => {
    const preflight = (origin: string) =>
      fetch(`${codecUrl}/decode`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace,authorization' },
      });
    const ok = await preflight(UI_ORIGIN);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(ok.headers.get('access-control-allow-headers')).toBe('content-type, x-namespace, authorization');
    expect(ok.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    const other = await preflight('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a malformed body with 400', async () => {
    const res = await decode({ authorization: `Bearer ${TOKEN}` }, { nope: true });
    expect(res.status).toBe(400);
  });
});

describe('replay through the codec', () => {
  it('replays the sealed checkout history with the worker data converter, and not without it', async () => {
    const history = await fetchHistory(checkoutId);
    const quiet = () => {};
    const logger = { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };
    const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, failureConverterPath, logger });
    const options = { workflowBundle: { code }, sinks: { metrics: { workflowFailed: { fn: quiet } } } };
    const dataConverter = encryptingDataConverter(payloadKeysFor(stack.config));
    await expect(Worker.runReplayHistory({ ...options, dataConverter }, history, checkoutId)).resolves.toBeUndefined();
    // Without the codec the workflow cannot read its own sealed input: the codec is what makes replay work.
    await expect(Worker.runReplayHistory(options, history, checkoutId)).rejects.toThrow();
  }, 180_000);
});
