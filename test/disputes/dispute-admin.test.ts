/**
 * `npm run admin -- dispute open|decide` and the business's dispute fee, run as the operator runs them
 * (a process of its own, against the stack's database and Temporal), with the stack's worker running the
 * dispute workflows the commands start and decide.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runCommand } from '../../src/cli/commands.js';
import { freePort } from '../../src/dev/free-port.js';
import { writeRunningService } from '../../src/dev/running.js';
import { paidSession } from '../support/payments.js';
import { balance, disputeWorkflow, expectLedgerVerified, FEE, TOTAL } from '../support/disputes.js';
import { useStack } from '../support/use-stack.js';

const run = promisify(execFile);
const stack = useStack();

const admin = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], {
    env: { ...process.env, ALLOW_TEST_ENV: 'true', DATABASE_URL: stack.databaseUrl, NODE_OPTIONS: '' },
  });
const json = async (...args: string[]) => JSON.parse((await admin(...args, '--json')).stdout);
const failure = (...args: string[]) => admin(...args).then(() => null, (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr.trim() }));
const inProcess = (args: string[], options: Record<string, string | boolean> = {}) =>
  runCommand(stack.orm.em.fork(), args, options, { disputeTimes: stack.config.disputes, temporal: async () => stack.temporal });

describe('the dispute fee', () => {
  it('is 15.00 unless business create says otherwise, and business update changes it', async () => {
    const { business: defaults } = (await inProcess(['business', 'create'], { name: 'Default fee' })).json as any;
    expect(defaults.disputeFeeCents).toBe(1500);
    const { business } = await json('business', 'create', '--name', 'Fee Shop', '--dispute-fee', '20.00');
    expect(business.disputeFeeCents).toBe(2000);
    const updated = await json('business', 'update', business.id, '--dispute-fee', '12.50');
    expect(updated.business).toMatchObject({ id: business.id, disputeFeeCents: 1250, feeBps: 290 });
    expect(await failure('business', 'update', business.id)).toMatchObject({ code: 2, stderr: expect.stringContaining('--dispute-fee') });
    expect(await failure('business', 'update', business.id, '--dispute-fee', '1.234')).toMatchObject({ code: 2, stderr: expect.stringContaining('two decimals') });
  });
});

describe('npm run admin -- dispute open', () => {
  it('records a chargeback, withdraws its funds at once, starts its workflow, and makes one dispute of the same notice twice', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await paidSession(stack, biz);
    const session = await paidSession(stack, biz);
    const before = await balance(stack, biz.testKey);
    const opened = await json('dispute', 'open', session.id, '--reason', 'fraudulent');
    expect(opened).toMatchObject({
      opened: true,
      dispute: { checkoutSessionId: session.id, reason: 'fraudulent', status: 'needs_response', amountInCents: TOTAL, feeInCents: FEE },
    });
    expect((await balance(stack, biz.testKey)).availableInCents).toBe(before.availableInCents - TOTAL - FEE);
    expect((await (await disputeWorkflow(stack, opened.dispute.id)).describe()).status.name).toBe('RUNNING');

    const again = await admin('dispute', 'open', session.id);
    expect(again.stdout).toContain(`Session ${session.id} is disputed already; nothing opened.`);
    expect((await balance(stack, biz.testKey)).availableInCents).toBe(before.availableInCents - TOTAL - FEE);
  });

  it('refuses a refunded session, an unknown one and a bad option, each with one line', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await paidSession(stack, biz);
    const session = await paidSession(stack, biz);
    expect((await stack.http.post('/api/refunds', { checkoutSessionId: session.id }, { key: biz.testKey })).status).toBe(201);
    expect(await failure('dispute', 'open', session.id)).toEqual({ code: 1, stderr: 'A refunded session cannot be disputed: the acquirer reverses the notice' });
    expect(await failure('dispute', 'open', '00000000-0000-4000-8000-000000000000')).toEqual({ code: 1, stderr: 'Checkout session not found' });
    expect(await failure('dispute', 'open', session.id, '--reason', 'bored')).toMatchObject({ code: 2, stderr: expect.stringContaining('--reason') });
    expect(await failure('dispute', 'open')).toMatchObject({ code: 2, stderr: expect.stringContaining('missing session id') });
  });
});

describe('npm run admin -- dispute decide', () => {
  it('records the acquirer\'s decision through the workflow: won returns the amount (the fee stays); a second decision changes nothing', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await paidSession(stack, biz);
    const session = await paidSession(stack, biz);
    const { dispute } = await json('dispute', 'open', session.id, '--reason', 'product_not_received');
    const submitted = await stack.http.post(`/api/disputes/${dispute.id}/evidence`, { shippingTrackingNumber: '1Z999AA10123456784', submit: true }, { key: biz.testKey });
    expect(submitted.body.data.status).toBe('under_review');
    const afterChargeback = await balance(stack, biz.testKey);

    const decided = await json('dispute', 'decide', dispute.id, '--outcome', 'won');
    expect(decided).toMatchObject({ changed: true, dispute: { id: dispute.id, status: 'won', closedAt: expect.any(String) } });
    expect((await balance(stack, biz.testKey)).availableInCents).toBe(afterChargeback.availableInCents + TOTAL);
    expect(await (await disputeWorkflow(stack, dispute.id)).result()).toBe('won');

    const again = await failure('dispute', 'decide', dispute.id, '--outcome', 'lost');
    expect(again).toMatchObject({ code: 1 });
    expect((await stack.http.get(`/api/disputes/${dispute.id}`, { key: biz.testKey })).body.data.status).toBe('won');
    expect(await failure('dispute', 'decide', dispute.id, '--outcome', 'maybe')).toMatchObject({ code: 2, stderr: expect.stringContaining('--outcome') });
    expect(await failure('dispute', 'decide', 'dsp_00000000000000000000000000000000', '--outcome', 'won')).toEqual({ code: 1, stderr: 'Dispute not found' });
    await expectLedgerVerified(stack);
  });

  it('escalates an inquiry decided lost to a chargeback, in either mode, right after the notice was entered', async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await paidSession(stack, biz, biz.liveKey);
    const session = await paidSession(stack, biz, biz.liveKey);
    const { dispute } = (await inProcess(['dispute', 'open', session.id], { inquiry: true, amount: '10.00' })).json as any;
    expect(dispute).toMatchObject({ status: 'warning_needs_response', livemode: true, amountInCents: 1000, funding: null });
    // At once: the workflow may not have started yet; the command waits for it.
    const decided = (await inProcess(['dispute', 'decide', dispute.id], { outcome: 'lost' })).json as any;
    expect(decided.dispute).toMatchObject({ status: 'needs_response', funding: { fromAvailableInCents: 1000 + FEE, fromReservesInCents: 0, owedInCents: 0 } });
    expect((await balance(stack, biz.liveKey)).availableInCents).toBe(2 * 4498 - 1000 - FEE);
    await expectLedgerVerified(stack);
  });
});

describe('npm run admin -- dispute decide, finding Temporal', () => {
  // A shell beside `npm start` has neither TEMPORAL_ADDRESS nor DEV_TEMPORAL_PORT: the CLI reads the data directory.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'admin-temporal-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const beside = (env: Record<string, string>, ...args: string[]) => {
    const { TEMPORAL_ADDRESS: _address, DEV_TEMPORAL_PORT: _port, ...inherited } = process.env;
    return run(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], {
      env: { ...inherited, ALLOW_TEST_ENV: 'true', DATABASE_URL: stack.databaseUrl, NODE_OPTIONS: '', DATA_DIR: dataDir, ...env },
    }).then(
      ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
  };

  it("connects to the Temporal of the npm start running on its data directory, on whatever port it was given", async () => {
    const biz = await stack.business({ reserveBps: 0 });
    await paidSession(stack, biz);
    const session = await paidSession(stack, biz);
    const { dispute } = (await inProcess(['dispute', 'open', session.id])).json as any;
    await disputeWorkflow(stack, dispute.id);
    // What `npm start` leaves while it runs (this process stands in for it): its Temporal is the stack's, not on 7233.
    writeRunningService(dataDir, { apiUrl: 'https://127.0.0.1:1/api/v1', testKey: 'mp_test_x', businessId: biz.id, caFile: null, banner: 'banner\n', temporalAddress: stack.config.temporal.address! });
    const decided = await beside({}, 'dispute', 'decide', dispute.id, '--outcome', 'lost', '--json');
    expect(decided).toMatchObject({ code: 0 });
    expect(JSON.parse(decided.stdout)).toMatchObject({ changed: true, dispute: { status: 'lost' } });
  });

  it('says in one line where it looked and what to set, when nothing answers there', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'admin-no-start-'));
    const port = await freePort();
    // The same CLI refused before it looks for Temporal: what starting it costs on this machine now.
    let started = Date.now();
    expect(await beside({ DATA_DIR: empty, DEV_TEMPORAL_PORT: String(port) }, 'dispute', 'decide', 'dsp_00000000000000000000000000000000', '--outcome', 'maybe')).toMatchObject({ code: 2 }); // a usage error
    const startup = Date.now() - started;
    started = Date.now();
    const failed = await beside({ DATA_DIR: empty, DEV_TEMPORAL_PORT: String(port) }, 'dispute', 'decide', 'dsp_00000000000000000000000000000000', '--outcome', 'won');
    rmSync(empty, { recursive: true, force: true });
    expect(failed.code).toBe(1);
    expect(failed.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^Cannot reach Temporal at 127\\.0\\.0\\.1:${port} \\(from DEV_TEMPORAL_PORT ${port}, as no npm start is running on ${empty.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): .+\\. Start the service \\(npm start\\), or set TEMPORAL_ADDRESS to the host:port of the Temporal it runs on\\.$`),
      ),
    ]);
    // Its own 5 s of trying, not the SDK's default 10 s, past what starting it took (a busy machine slows both runs alike).
    expect(Date.now() - started - startup).toBeLessThan(9_000);
  });
});
