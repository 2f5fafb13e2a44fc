/**
 * The Temporal UI decodes histories through the codec endpoint under npm start: a Temporal dev server
 * with its Web UI started as `npm start` starts it (`--ui-codec-endpoint` at the API's admin port), a
 * paid session's workflow opened in the UI in Chromium, and what the page shows decoded by the codec
 * endpoint from the UI's own calls (the history itself is sealed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-dev-server.js';
import { freePort } from '../../src/dev/free-port.js';
import { createLogger } from '../../src/log.js';
import { startOpsPort } from '../../src/main/ops-port.js';

import type { OpsServer } from '../../src/ops/ops-server.js';
import { CARDS, createSession, eventually, payBody, payToCompletion } from '../support/payments.js';
import { useStack } from '../support/use-stack.js';
import { launchChromium } from './chromium.js';
import { checkoutWorkflowId } from '../../contracts/workflow-ids.js';

const NAME = 'Uma Uicodec';
let dataDir: string;
let temporal: TemporalDevServer;
let admin: OpsServer;
let adminPort: number;
let browser: { context: BrowserContext; close: () => Promise<void> };
let uiOrigin: string;

// Hooks run in the order declared: the browser and the admin port go first, then the stack, then its Temporal.
afterAll(async () => {
  await browser?.close();
  await admin?.close();
});
const stack = useStack(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'ui-codec-'));
  const [temporalPort, uiPort, codecPort] = await Promise.all([freePort(), freePort(), freePort()]);
  adminPort = codecPort;
  uiOrigin = `http://localhost:${uiPort}`;
  temporal = await startTemporalDevServer({
    dataDir,
    port: temporalPort,
    uiPort,
    cliPath: process.env.TEMPORAL_CLI_PATH,
    uiCodecEndpoint: `http://127.0.0.1:${adminPort}/codec`,
  });
  return { TEMPORAL_ADDRESS: temporal.address };
});
afterAll(async () => {
  await temporal?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

beforeAll(async () => {
  // As under `npm start`: development, no token (its UI has no login to pass one with), the UI's origin allowed.
  const config = { ...stack.config, env: 'development' as const, admin: { host: '127.0.0.1', port: adminPort }, codec: { corsOrigins: [uiOrigin] } };
  admin = await startOpsPort({ config, connections: { orm: stack.orm, temporal: stack.temporal }, log: createLogger('silent'), worker: false, codec: true });
  browser = await launchChromium();
}, 120_000);

it("shows a paid session's workflow decoded through the codec endpoint", async () => {
  const biz = await stack.business();
  const session = await createSession(stack, biz.testKey);
  await payToCompletion(stack, session.id, payBody(CARDS.success, { name: NAME }));
  const handle = stack.temporal.workflow.getHandle(checkoutWorkflowId(session.id));
  // The run has closed, so its history holds the pay update's outcome (on a loaded machine the pay call
  // can answer, and the session complete, before the update's completion is written).
  await handle.result();
  const described = await handle.describe();
  const expiresAt = new Date(session.expiresAt).toISOString();

  const page = await browser.context.newPage();
  const decoded: string[] = [];
  page.on('response', async (response) => {
    if (!response.url().endsWith('/codec/decode') || response.request().method() !== 'POST') return;
    decoded.push(`${response.status()}`);
    const body = (await response.json().catch(() => ({ payloads: [] }))) as { payloads: { data: string }[] };
    for (const p of body.payloads) decoded.push(Buffer.from(p.data, 'base64').toString('utf8'));
  });
  await page.goto(`${uiOrigin}/namespaces/default/workflows/${described.workflowId}/${described.runId}/history`);
  // The workflow's input as the UI shows it: only the codec endpoint can have opened it.
  await page.getByText(expiresAt).first().waitFor({ timeout: 60_000 });
  expect(decoded[0]).toBe('200');
  // The summary (naming the acquirer that took the payment) and the pay update's outcome came back from
  // the endpoint, and the page shows the summary.
  await page.getByText(`Checkout ${session.id} of $46.58 via simulator`).first().waitFor({ timeout: 10_000 });
  // Each answer is recorded once its body is read: wait for the ones still being read.
  const outcome = JSON.stringify({ outcome: 'completed', status: 'completed' });
  await eventually('the pay outcome decoded', () => decoded.includes(outcome));
  expect(decoded).toContain(JSON.stringify(`Checkout ${session.id} of $46.58 via simulator`));
  await page.close();
}, 120_000);
