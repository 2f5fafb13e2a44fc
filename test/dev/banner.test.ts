/**
 * What `npm start`'s banner says serves live keys, and `npm run admin -- banner` again: the acquirer
 * configured for live mode (ACQUIRER=stripe, with stripe-mock's address when STRIPE_API_BASE names it),
 * else the simulator or nobody, as before.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { bannerText } from '../../src/main/banner.js';
import { livePaymentsNotice } from '../../src/modules/processor/index.js';
import { removeRunningService, writeRunningService } from '../../src/dev/running.js';

const run = promisify(execFile);
const STRIPE = { ACQUIRER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_banner', STRIPE_WEBHOOK_SECRET: 'whsec_banner', STRIPE_PUBLISHABLE_KEY: 'pk_test_banner' };

const banner = (env: Record<string, string>, dataDir = '/tmp/data') =>
  bannerText({
    apiOrigin: 'https://localhost:3443',
    uiUrl: 'http://localhost:8233',
    admin: 'http://127.0.0.1:9464',
    temporalAddress: '127.0.0.1:7233',
    sdkMetrics: '127.0.0.1:9465',
    portsFrom: null,
    testKey: 'mp_test_x',
    livePayments: livePaymentsNotice(loadConfig(env)).replace(/^live payments: /, ''),
    caFile: null,
    pgWhere: 'embedded',
    dataDir,
    logDir: `${dataDir}/logs`,
  });
const liveLine = (text: string) => text.split('\n').find((line) => line.startsWith('  Live payments'));

describe("the banner's live payments line", () => {
  it.each([
    [STRIPE, '  Live payments    stripe, ACQUIRER=stripe; live withdrawals refused: no withdrawal rail'],
    [{ ...STRIPE, STRIPE_API_BASE: 'http://127.0.0.1:12111' }, '  Live payments    stripe at http://127.0.0.1:12111 (STRIPE_API_BASE), ACQUIRER=stripe; live withdrawals refused: no withdrawal rail'],
    [{ ...STRIPE, WITHDRAWAL_RAIL: 'simulator' }, '  Live payments    stripe, ACQUIRER=stripe; live withdrawals simulated (WITHDRAWAL_RAIL=simulator)'],
    [{}, '  Live payments    simulated — NODE_ENV=development; live keys use the card simulator and no real money moves'],
    [{ ACQUIRER: 'simulator', ALLOW_SIMULATED_LIVE_PAYMENTS: 'false' }, '  Live payments    refused, no acquirer configured (live keys can read, but cannot pay, refund or withdraw)'],
  ])('%j', (env, line) => {
    expect(liveLine(banner(env))).toBe(line);
  });

  it('is printed again by npm run admin -- banner', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'banner-'));
    try {
      const text = banner({ ...STRIPE, STRIPE_API_BASE: 'http://127.0.0.1:12111' }, dataDir);
      // This process stands in for the running npm start, which leaves its banner in the data directory.
      writeRunningService(dataDir, { apiUrl: 'https://localhost:3443/api/v1', testKey: 'mp_test_x', businessId: 'biz_x', caFile: null, banner: text, temporalAddress: '127.0.0.1:7233' });
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'banner'], { env: { ...process.env, DATA_DIR: dataDir, NODE_ENV: 'development' } });
      expect(liveLine(stdout)).toBe(liveLine(text));
      expect(stdout).toMatch(/Live payments\s+stripe at http:\/\/127\.0\.0\.1:12111/);
    } finally {
      removeRunningService(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("the banner's links", () => {
  it('the API line links the reference, which answers, not /api alone, which is a 404', () => {
    const text = banner({});
    expect(text).toContain('  API reference    https://localhost:3443/docs   (the API is under /api: the curl line below)');
    expect(text).not.toMatch(/https:\/\/localhost:3443\/api(\/v1)?(\s|$)/);
  });
});

describe('configuring the acquirer', () => {
  it('takes ACQUIRER=stripe with its keys: live payments to Stripe, withdrawals refused unless a rail is configured apart', () => {
    const config = loadConfig(STRIPE);
    expect(config).toMatchObject({ livePayments: 'acquirer', liveWithdrawals: 'refused', acquirer: { name: 'stripe', secretKey: 'sk_test_banner', webhookSecret: 'whsec_banner', publishableKey: 'pk_test_banner', stripeJsUrl: 'https://js.stripe.com/v3/' } });
    expect(loadConfig({ ...STRIPE, WITHDRAWAL_RAIL: 'simulator' }).liveWithdrawals).toBe('simulated');
  });

  it('keeps live mode as it was with no acquirer (simulated under npm start, refused in production)', () => {
    expect(loadConfig({})).toMatchObject({ acquirer: null, livePayments: 'simulated', liveWithdrawals: 'simulated' });
    expect(loadConfig({}, 'production')).toMatchObject({ acquirer: null, livePayments: 'refused', liveWithdrawals: 'refused' });
    expect(loadConfig({ ACQUIRER: 'simulator' }, 'production')).toMatchObject({ acquirer: null, livePayments: 'refused' });
  });

  it.each([
    [{ ACQUIRER: 'stripe', STRIPE_WEBHOOK_SECRET: 'whsec_x' }, 'Invalid configuration: ACQUIRER=stripe needs STRIPE_SECRET_KEY (docs/acquirer.md)'],
    [{ ACQUIRER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' }, 'Invalid configuration: ACQUIRER=stripe needs STRIPE_WEBHOOK_SECRET (docs/acquirer.md)'],
    [{ STRIPE_SECRET_KEY: 'sk_test_x' }, 'Invalid configuration: STRIPE_SECRET_KEY is set but ACQUIRER is not stripe; set ACQUIRER=stripe or unset it'],
    [{ ...STRIPE, ALLOW_SIMULATED_LIVE_PAYMENTS: 'true' }, 'Invalid configuration: ALLOW_SIMULATED_LIVE_PAYMENTS=true and ACQUIRER=stripe both name what serves live payments; unset one'],
    [{ ...STRIPE, NODE_ENV: 'production', STRIPE_API_BASE: 'http://127.0.0.1:12111' }, 'Invalid configuration: STRIPE_API_BASE is for stripe-mock in tests and development; production talks to Stripe itself'],
    [{ ACQUIRER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }, 'Invalid configuration: ACQUIRER=stripe needs STRIPE_PUBLISHABLE_KEY (docs/acquirer.md)'],
    [{ ...STRIPE, NODE_ENV: 'production', STRIPE_JS_URL: 'http://127.0.0.1:4000/stripe.js' }, 'Invalid configuration: STRIPE_JS_URL is for a stand-in of Stripe.js in tests and development; production loads Stripe.js from Stripe itself'],
    [{ STRIPE_JS_URL: 'http://127.0.0.1:4000/stripe.js' }, 'Invalid configuration: STRIPE_JS_URL is set but ACQUIRER is not stripe; set ACQUIRER=stripe or unset it'],
    [{ ...STRIPE, STRIPE_SECRET_KEY: 'sk_live_x' }, 'Invalid configuration: STRIPE_PUBLISHABLE_KEY is a test key and STRIPE_SECRET_KEY a live one; both must be of one Stripe mode'],
    [{ ...STRIPE, STRIPE_PUBLISHABLE_KEY: 'pk_live_x' }, 'Invalid configuration: STRIPE_PUBLISHABLE_KEY is a live key and STRIPE_SECRET_KEY a test one; both must be of one Stripe mode'],
    [{ ACQUIRER: 'adyen' }, /^Invalid configuration: ACQUIRER: /],
    [{ ...STRIPE, STRIPE_SECRET_KEY: 'pk_test_x' }, /^Invalid configuration: STRIPE_SECRET_KEY: must be a Stripe secret key/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
