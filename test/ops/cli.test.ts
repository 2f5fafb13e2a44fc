import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runCommand } from '../../src/cli/commands.js';
import { useStack } from '../support/use-stack.js';

const run = promisify(execFile);
const stack = useStack({}, { worker: false });

const admin = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], {
    env: { ...process.env, ALLOW_TEST_ENV: 'true', DATABASE_URL: stack.databaseUrl, NODE_OPTIONS: '' },
  });

describe('admin CLI', () => {
  it('creates a business whose printed test key creates, lists and reads sessions', async () => {
    const { stdout } = await admin('business', 'create', '--name', 'CLI Shop', '--fee-percent', '3.5', '--fixed-fee', '0.25', '--reserve-percent', '5', '--reserve-hold', '10s', '--json');
    const created = JSON.parse(stdout);
    expect(created.business).toMatchObject({ name: 'CLI Shop', feeBps: 350, feeFixedCents: 25, reserveBps: 500, reserveHoldMs: 10_000, approved: false });
    const testKey = created.keys.find((k: any) => k.mode === 'test').secret;
    expect(testKey).toMatch(/^mp_test_[A-Za-z0-9]{32}$/);

    const session = await stack.http.post(
      '/api/checkout/sessions',
      { description: 'CLI order', customer: { email: 'c@x.co' }, items: [{ name: 'x', price: 10, quantity: 1 }] },
      { key: testKey },
    );
    expect(session.status).toBe(201);
    expect(session.body.data.total).toBe(1000 + 35 + 25);
    const list = await stack.http.get('/api/checkout/sessions', { key: testKey });
    expect(list.body.data.items.map((s: any) => s.id)).toEqual([session.body.data.id]);
    const read = await stack.http.get(`/api/checkout/sessions/${session.body.data.id}`, { key: testKey });
    expect(read.body.data.description).toBe('CLI order');
  });

  it('approves a business, after which its live key works', async () => {
    const { business, keys } = (await runCommand(stack.orm.em.fork(), ['business', 'create'], { name: 'Later' })).json as any;
    const liveKey = keys.find((k: any) => k.mode === 'live').secret;
    expect((await stack.http.get('/api/checkout/sessions', { key: liveKey })).status).toBe(403);
    await admin('business', 'approve', business.id);
    expect((await stack.http.get('/api/checkout/sessions', { key: liveKey })).status).toBe(200);
  });

  it('creates and revokes keys, adds withdrawal methods and lists businesses', async () => {
    const { business } = (await runCommand(stack.orm.em.fork(), ['business', 'create'], { name: 'Keys Inc' })).json as any;
    const { key } = (await runCommand(stack.orm.em.fork(), ['key', 'create', business.id], { mode: 'test', scope: 'read_only' })).json as any;
    expect(key.scope).toBe('read_only');
    expect((await stack.http.get('/api/checkout/sessions', { key: key.secret })).status).toBe(200);
    await runCommand(stack.orm.em.fork(), ['key', 'revoke', key.id], {});
    expect((await stack.http.get('/api/checkout/sessions', { key: key.secret })).status).toBe(401);

    const wallet = (await runCommand(stack.orm.em.fork(), ['withdrawal-method', 'add', business.id], { type: 'wallet', 'wallet-email': 'pay@keys.test' })).json as any;
    expect(wallet.withdrawalMethod).toMatchObject({ destinationType: 'wallet', details: { walletEmail: 'pay@keys.test' } });
    const list = await runCommand(stack.orm.em.fork(), ['business', 'list'], {});
    expect(list.text).toContain('Keys Inc');
  });

  it('gives a business created without options the demo terms: 2.9 % + $0.30, no reserve, 90-day hold', async () => {
    const { business } = (await runCommand(stack.orm.em.fork(), ['business', 'create'], { name: 'Defaults' })).json as any;
    expect(business).toMatchObject({ feeBps: 290, feeFixedCents: 30, reserveBps: 0, reserveHoldMs: 90 * 24 * 3600 * 1000, rateLimitTier: 'standard' });
  });

  it('ledger verify exits 0 on a sound ledger and non-zero naming the offender on a breach', async () => {
    const { business } = (await runCommand(stack.orm.em.fork(), ['business', 'create'], { name: 'Audited' })).json as any;
    const { stdout } = await admin('ledger', 'verify');
    expect(stdout).toContain('Ledger verified');
    const db = stack.orm.em.getConnection();
    await db.execute(`insert into balances (business_id, livemode, available, reserved, pending_withdrawal, refunds_in_flight, updated_at)
      values (?, false, 1, 0, 0, 0, now())`, [business.id]);
    try {
      const failed = await admin('ledger', 'verify').then(() => null, (err) => err);
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toContain(business.id);
    } finally {
      await db.execute('delete from balances where business_id = ?', [business.id]);
    }
  });

  it('rejects bad options with one clear line and exit code 2', async () => {
    await expect(admin('business', 'create', '--name', 'X', '--fee-percent', '2.955')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--fee-percent'),
    });
  });
});
