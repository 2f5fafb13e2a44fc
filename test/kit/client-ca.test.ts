import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPaymentsClient, PaymentsConnectionError } from '@payments/client';
import { writeRunningService } from '../../src/dev/running.js';
import { readmeFences } from '../support/readme-blocks.js';
import { useBusiness, useStack } from '../support/use-stack.js';

/**
 * The API's certificate is signed by a CA of its own (the test CA here, `npm start`'s development CA for
 * a reader), which neither this process nor a child of it trusts: the client must be told it, by its
 * `ca` option or by PAYMENTS_CA_FILE, so that `node --env-file=.data/demo.env app.js` works as the
 * README says. No trustTestCa() here: that would make every connection trust the CA.
 */
const run = promisify(execFile);
const repo = process.cwd();
const stack = useStack();
const biz = useBusiness(stack, { name: 'CA Coffee' });
const ca = () => readFileSync(process.env.TEST_TLS_CA!);
const cart = { description: 'Order 1', customer: { email: 'ada@example.com' }, items: [{ name: 'House blend, 1 kg', price: 24.5, quantity: 1 }] };
const options = () => ({ apiKey: biz.testKey, baseUrl: `${stack.origin}/api/v1` });

/** PAYMENTS_CA_FILE as a test sets it, and as it was after. */
let savedCaFile: string | undefined;
beforeEach(() => {
  savedCaFile = process.env.PAYMENTS_CA_FILE;
  delete process.env.PAYMENTS_CA_FILE;
});
afterEach(() => {
  if (savedCaFile === undefined) delete process.env.PAYMENTS_CA_FILE;
  else process.env.PAYMENTS_CA_FILE = savedCaFile;
});

describe('@payments/client: the CA of the API’s certificate', () => {
  it('with the ca option, trusts it for its own connections, and the process’s fetch still does not', async () => {
    const payments = createPaymentsClient({ ...options(), ca: ca() });
    await expect(payments.checkoutSessions.create(cart)).resolves.toMatchObject({ status: 'pending', description: 'Order 1' });
    await expect(fetch(`${stack.origin}/api/v1/balance`)).rejects.toThrow('fetch failed');
  });

  it('with neither ca nor PAYMENTS_CA_FILE, refuses the certificate at once, without retries, saying what to set', async () => {
    let attempts = 0;
    const counted: typeof fetch = (input, init) => (attempts++, globalThis.fetch(input, init));
    const refused = await createPaymentsClient({ ...options(), fetch: counted }).balance.retrieve().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaymentsConnectionError);
    expect((refused as Error).message).toMatch(/certificate is not trusted \(\w+\): give createPaymentsClient .* ca option, or name its file in PAYMENTS_CA_FILE/);
    expect(attempts).toBe(1);
  });

  it('without ca, reads the file PAYMENTS_CA_FILE names', async () => {
    process.env.PAYMENTS_CA_FILE = process.env.TEST_TLS_CA;
    await expect(createPaymentsClient(options()).balance.retrieve()).resolves.toMatchObject({ currency: expect.any(String) });
  });

  it('names PAYMENTS_CA_FILE when its file cannot be read or holds no certificate, when the client is made', () => {
    process.env.PAYMENTS_CA_FILE = '/nonexistent/ca.pem';
    expect(() => createPaymentsClient(options())).toThrow(/cannot read the CA file PAYMENTS_CA_FILE names, \/nonexistent\/ca\.pem: ENOENT/);
    const dir = mkdtempSync(path.join(repo, 'node_modules', '.client-ca-'));
    try {
      process.env.PAYMENTS_CA_FILE = path.join(dir, 'ca.pem');
      writeFileSync(process.env.PAYMENTS_CA_FILE, 'not a certificate\n');
      expect(() => createPaymentsClient(options())).toThrow(/the file PAYMENTS_CA_FILE names, .*ca\.pem, holds no PEM certificate/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a file name given as the ca option, pointing to PAYMENTS_CA_FILE', () => {
    expect(() => createPaymentsClient({ ...options(), ca: process.env.TEST_TLS_CA! })).toThrow(/ca must be the PEM text .* a file name alone belongs in PAYMENTS_CA_FILE/);
  });
});

/**
 * The README's line, run for real: the client's README `app.js`, as a reader saves it, importing the
 * package's own build by name with plain node (no loader, no source condition), run with
 * `node --env-file=.data/demo.env app.js` on a demo.env written by npm start's own writer for this stack.
 */
describe('node --env-file=.data/demo.env app.js (the README)', () => {
  const line = 'node --env-file=.data/demo.env app.js';
  let dir: string;
  /** The child's environment: none of this process's PAYMENTS_ settings, CAs or loaders. */
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(PAYMENTS_|NODE_EXTRA_CA_CERTS$|NODE_OPTIONS$)/.test(name)));
  const runLine = () => run(process.execPath, line.split(' ').slice(1), { cwd: dir, env: clean, timeout: 60_000 });
  const demoEnv = (caFile: string | null) =>
    writeRunningService(path.join(dir, '.data'), { apiUrl: `${stack.origin}/api/v1`, testKey: biz.testKey, businessId: biz.id, caFile, banner: '', temporalAddress: '' });

  beforeAll(async () => {
    expect(readFileSync(path.join(repo, 'README.md'), 'utf8')).toContain(`\`${line}\``);
    const clientReadme = readFileSync(path.join(repo, 'packages/client/README.md'), 'utf8');
    const apps = readmeFences(clientReadme).filter((f) => f.language === 'js');
    expect(apps).toHaveLength(1);
    // Under node_modules, so that the package's dependencies resolve from the repository's.
    dir = mkdtempSync(path.join(repo, 'node_modules', '.client-ca-'));
    const pkg = path.join(dir, 'node_modules/@payments/client');
    mkdirSync(pkg, { recursive: true });
    copyFileSync(path.join(repo, 'packages/client/package.json'), path.join(pkg, 'package.json'));
    // Its own dist/, not the package's: packages-build.test.ts removes and rebuilds that one.
    await run(process.execPath, [path.join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'packages/client/tsconfig.json', '--outDir', path.join(pkg, 'dist')], { cwd: repo });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(path.join(dir, 'app.js'), apps[0]!.body.join('\n'));
    mkdirSync(path.join(dir, '.data'));
  }, 120_000);
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('creates a checkout session and lists it, trusting the CA that PAYMENTS_CA_FILE names', async () => {
    demoEnv(process.env.TEST_TLS_CA!);
    const { stdout } = await runLine();
    const id = /^created (\S+), pending: pay at \S+\/checkout\/\S+$/m.exec(stdout)?.[1];
    expect({ stdout, id }).toEqual({ stdout, id: expect.any(String) });
    expect(stdout).toContain(`newest session: ${id}`);
    const made = await createPaymentsClient({ ...options(), ca: ca() }).checkoutSessions.retrieve(id!);
    expect(made).toMatchObject({ description: 'Order 1', status: 'pending' });
  }, 90_000);

  it('without PAYMENTS_CA_FILE, fails on the certificate and says what to set', async () => {
    demoEnv(null);
    const failed = await runLine().then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/certificate is not trusted .* PAYMENTS_CA_FILE/);
  }, 90_000);
});
