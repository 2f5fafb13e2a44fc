import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { freePort } from '../../src/dev/free-port.js';
import { runningEmbeddedPort } from '../../src/dev/embedded-postgres.js';
import { DATA_ROOT, effectiveDataDir } from '../../src/dev/postgres-user.js';
import { launchChromium } from '../browser/chromium.js';
import { eventually } from '../support/payments.js';
import { forceStop, freshClone, readmeQuickStart, runLine, troubleIn, userEnv, waitFor, type Clone, type Running } from '../support/quick-start.js';
import { fillPlaceholders, lastIdOf, placeholdersOf, readmeBlocks, readmeTypeScript, startShell, unreadFences, type Shell } from '../support/readme-blocks.js';

/**
 * The README, followed from the top by a newcomer: a fresh clone in a directory only its owner can
 * enter, `npm start` as the Quick start writes it (on ports of its own, so it collides with nothing
 * running here), then every shell block in order, in one shell, as written; the example shop started
 * by its README command and used in a real browser: bought, paid, a delivery sent twice, refunded. The
 * machine presets NODE_EXTRA_CA_CERTS to the system's bundle, as some do, which must not stop the shop
 * trusting the API. Then Ctrl-C, the README's clean-up, and `npm test` in the clone. As root and as
 * anyone else. Before all that: every fenced block is one the test runs, compiles or shows as text, and
 * the TypeScript compiles against the kit as a reader would paste it.
 */
const repo = process.cwd();
const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
const commands = readmeQuickStart(readme);
const blocks = readmeBlocks(readme);
const SYSTEM_CAS = '/etc/ssl/certs/ca-certificates.crt';
/** What the README's TypeScript leaves to the reader's own code, declared so that the rest is checked. */
const READERS_OWN = 'declare function fulfil(sessionId: string): void;';
const root = process.getuid?.() === 0;

let clone: Clone;
let env: NodeJS.ProcessEnv;
let ports: Record<string, string>;
let start: Running | undefined;
let banner = '';
let shell: Shell | undefined;
const background: Running[] = [];
let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;

beforeAll(async () => {
  clone = freshClone(repo);
  const port = async () => String(await freePort());
  ports = {
    PORT: await port(),
    ADMIN_PORT: await port(),
    DEV_POSTGRES_PORT: await port(),
    DEV_TEMPORAL_PORT: await port(),
    DEV_TEMPORAL_UI_PORT: await port(),
    TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await port()}`,
    SHOP_PORT: await port(),
  };
  env = userEnv(repo, { ...ports, NODE_EXTRA_CA_CERTS: SYSTEM_CAS });
});

afterAll(async () => {
  await browser?.close();
  shell?.close();
  for (const run of background) await forceStop(run);
  if (start) await forceStop(start);
  if (!clone) return;
  const pgDir = effectiveDataDir(path.join(clone.dir, '.data', 'pg'));
  if (pgDir.startsWith(`${DATA_ROOT}/`)) rmSync(path.dirname(pgDir), { recursive: true, force: true });
  clone.remove();
}, 90_000);

describe('the README, followed from the top in a fresh clone', () => {
  it('has no fenced block the test would skip unseen: each is sh (run), ts (compiled) or text (shown)', () => {
    expect(unreadFences(readme)).toEqual([]);
    expect(blocks.length).toBeGreaterThan(5);
  });

  it('compiles its TypeScript (the constructEvent example) against the kit, with the repository’s compiler options', () => {
    const snippets = readmeTypeScript(readme);
    expect(snippets.length).toBeGreaterThan(0);
    // Under node_modules, so the kit's packages resolve as in the repository (workspace links, source condition).
    const dir = mkdtempSync(path.join(repo, 'node_modules', '.readme-ts-'));
    try {
      const files = snippets.map((code, i) => {
        writeFileSync(path.join(dir, `snippet-${i}.ts`), `${code}\n${READERS_OWN}\n`);
        return `snippet-${i}.ts`;
      });
      writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: path.join(repo, 'tsconfig.json'), compilerOptions: { noEmit: true }, include: [], files }));
      const tsc = spawnSync(process.execPath, [path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
      expect({ status: tsc.status, output: `${tsc.stdout}${tsc.stderr}`.replaceAll(dir, '<snippet>') }).toEqual({ status: 0, output: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('starts with two commands: npm start and npm test', () => {
    expect(commands.map((c) => c.replace(/\s*#.*$/, ''))).toEqual(['npm start', 'npm test']);
  });

  it('npm start serves on the port it is given, says where its data is, and prints its banner', async () => {
    start = runLine(commands[0]!.replace(/\s*#.*$/, ''), clone.dir, env);
    await waitFor(start, 'Press Ctrl-C to stop.', 420_000);
    banner = start.output();
    expect(/API reference\s+(https:\/\/\S+)\/docs/.exec(banner)?.[1]).toBe(`https://localhost:${ports.PORT}`);
    expect(banner).toMatch(/Demo test key\s+mp_test_\S+/);
    // Where PostgreSQL keeps its data; as root, where the postgres user can reach it.
    const pgData = /PostgreSQL\s+127\.0\.0\.1:\d+, data in (\S+)/.exec(banner)?.[1];
    expect(pgData).toBe(effectiveDataDir(path.join(clone.dir, '.data', 'pg')));
    expect(existsSync(path.join(pgData!, 'PG_VERSION'))).toBe(true);
    if (root) expect(pgData!.startsWith(clone.home)).toBe(false);
  }, 450_000);

  it('runs every shell block as written; the shop is bought from, paid once, sent a delivery twice and refunded', async () => {
    expect(start).toBeDefined();
    shell = startShell(clone.dir, env);
    let shown = banner; // what the reader has seen: ids to copy come from here
    const ran: string[] = [];
    const terminal = () => start!.output().slice(banner.length);
    const run = async (command: string) => {
      for (const prefix of placeholdersOf(command)) {
        if (lastIdOf(prefix, shown)) continue;
        // An id no command printed is on npm start's terminal (a dispute's, 2 s after its payment): a
        // reader waits for its line.
        await eventually(`npm start's terminal to show a ${prefix}_ id for ${command}`, async () => lastIdOf(prefix, terminal()) !== undefined, 90_000);
      }
      const filled = fillPlaceholders(command, shown, terminal());
      const { status, output } = await shell!.run(filled, 240_000);
      shown += output;
      ran.push(filled);
      // An API error is a failure too, though curl exits 0 on it.
      expect({ command: filled, status, apiError: /"success":\s*false.*/.exec(output)?.[0] ?? null, output: status ? output : '' }).toEqual({
        command: filled,
        status: 0,
        apiError: null,
        output: '',
      });
      return output;
    };

    const shopOrigin = `https://localhost:${ports.SHOP_PORT}`;
    const walk = shopWalk(shopOrigin, `https://localhost:${ports.PORT}`);
    let retried = '';
    for (const block of blocks) {
      if (block.marker.kind === 'skip' || block.marker.kind === 'after-stop') continue;
      if (block.marker.kind === 'background') {
        for (const command of block.commands) {
          const started = runLine(command, clone.dir, env);
          background.push(started);
          await waitFor(started, block.marker.until, 240_000);
          ran.push(command);
        }
        continue;
      }
      if (block.marker.kind === 'after-browser') shown += await walk.buyFirst();
      for (const command of block.commands) {
        const output = await run(command);
        if (block.marker.kind === 'after-browser') retried = output;
      }
      if (block.marker.kind === 'after-browser') await walk.secondDeliveryThenRefund(retried);
    }
    expect(ran).toEqual(expect.arrayContaining(['npm run shop', expect.stringContaining('/webhooks/retry/whd_'), expect.stringContaining('balance-transactions export')]));

    // The export is a CSV from its first line, with the walk-through's sales and refund in it.
    const rows = JSON.parse(
      execFileSync('python3', ['-c', 'import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline="")))))', path.join(clone.dir, 'balance.csv')], { encoding: 'utf8' }),
    ) as string[][];
    expect(rows[0]!.slice(0, 5)).toEqual(['id', 'type', 'amountInCents', 'feeInCents', 'netInCents']);
    expect(rows.every((row) => row.length === rows[0]!.length)).toBe(true);
    const moves = rows.slice(1).map((row) => `${row[1]} ${row[2]} ${row[5]}`);
    expect(moves).toEqual(expect.arrayContaining(['payment 2306 available', 'reserve_hold 245 reserved', 'refund -2551 available']));

    // The terminal under the banner: a short line per payment (the README's two, the shop's two), refund
    // and step of the dispute, with its id, amount, kind, reason and due date; no JSON.
    expect(terminal().match(/^\d\d:\d\d:\d\d {2}payment of \$25\.51 succeeded/gm)).toHaveLength(4);
    expect(terminal()).toMatch(/^\d\d:\d\d:\d\d {2}refund of \$25\.51 completed/m);
    expect(terminal()).toMatch(
      /^\d\d:\d\d:\d\d {2}dispute of \$25\.51 opened, a chargeback \(fraudulent\): evidence due by \d{4}-\d\d-\d\d \d\d:\d\d UTC \(dsp_[0-9a-f]{32}, session [0-9a-f-]{36}\)$/m,
    );
    expect(terminal()).toMatch(/^\d\d:\d\d:\d\d {2}dispute of \$25\.51: evidence submitted, now under review \(dsp_/m);
    // The README's evidence wins (the simulated network decides 5 s after the submission).
    await eventually('the dispute won', async () => /^\d\d:\d\d:\d\d {2}dispute of \$25\.51 won: the amount was returned to the balance/m.test(terminal()), 60_000);
    expect(terminal()).not.toMatch(/"level":|^\d\d:\d\d:\d\d {2}event /m);
  }, 900_000);

  it('Ctrl-C stops npm start, its database and Temporal, and leaves nothing to say', async () => {
    expect(start).toBeDefined();
    for (const run of background) {
      run.interrupt();
      await run.exited;
    }
    start!.interrupt();
    const timer = setTimeout(() => start?.interrupt(), 60_000);
    const ended = await start!.exited;
    clearTimeout(timer);
    // npm reports Ctrl-C as Ctrl-C (130, or the signal itself) however its script ended; a script that
    // failed would add "npm error" lines, which troubleIn catches, as it catches any warning.
    expect(ended.signal === 'SIGINT' || ended.code === 130).toBe(true);
    expect(troubleIn(start!.output())).toEqual([]);
    expect(start!.output().slice(banner.length)).not.toMatch(/terminating connection|shutdown:/);
    expect(runningEmbeddedPort(path.join(clone.dir, '.data', 'pg'))).toBeNull();
    expect(await accepts(Number(ports.DEV_TEMPORAL_PORT))).toBe(false);
    expect(existsSync(path.join(clone.dir, '.data', 'demo.env'))).toBe(false); // it described a service now gone

    // Then the README's clean-up: the data is gone, the database's too wherever it was (as root, outside the clone).
    const database = effectiveDataDir(path.join(clone.dir, '.data', 'pg'));
    expect(existsSync(path.join(database, 'PG_VERSION'))).toBe(true);
    const cleanUp = blocks.filter((b) => b.marker.kind === 'after-stop').flatMap((b) => b.commands);
    expect(cleanUp).toEqual(['npm run clean']);
    for (const command of cleanUp) {
      const { status, output } = await shell!.run(command, 120_000);
      expect({ command, status, output: status ? output : '' }).toEqual({ command, status: 0, output: '' });
    }
    expect([existsSync(path.join(clone.dir, '.data')), existsSync(database), existsSync(path.dirname(database))]).toEqual([false, false, false]);
  }, 240_000);

  it('npm test runs in the clone (one small file, through the README command)', async () => {
    const run = runLine(`${commands[1]!.replace(/\s*#.*$/, '')} -- test/http/versioning.test.ts`, clone.dir, userEnv(repo));
    const ended = await run.exited;
    expect({ ended, tail: run.output().split('\n').slice(-12) }).toMatchObject({ ended: { code: 0, signal: null } });
    expect(run.output()).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 300_000);
});

/**
 * What the README's walk-through asks of the reader's browser: buy the house blend and pay with the test
 * card; after the manual re-send, see the second delivery and one fulfilment; buy again and refund the first.
 */
function shopWalk(shopOrigin: string, apiOrigin: string) {
  let page: Page;
  let firstOrder = '';

  const cell = (row: number, column: number) => page.locator('[data-event-type="checkout.succeeded"]').nth(row).locator('td').nth(column).textContent();
  const until = async (what: string, read: () => Promise<unknown>, expected: unknown) => {
    let last: unknown;
    await eventually(`${what} to be ${JSON.stringify(expected)}`, async () => {
      try {
        await page.reload({ waitUntil: 'domcontentloaded' });
        last = await read();
      } catch {
        return false; // the page's own refresh raced the reload: again
      }
      return JSON.stringify(last) === JSON.stringify(expected);
    }, 90_000).catch((error: Error) => {
      throw new Error(`${error.message}; it was ${JSON.stringify(last)}`);
    });
  };
  const text = (selector: string) => async () => (await page.locator(selector).textContent({ timeout: 2_000 }))?.trim();

  async function buy(): Promise<string> {
    await page.goto(shopOrigin);
    await page.getByRole('button', { name: 'Buy House blend, 1 kg' }).click();
    await page.waitForURL(`${apiOrigin}/checkout/**`, { timeout: 60_000 });
    // The customer pays the fee on top: $24.50 in the shop, $25.51 on the hosted page.
    await expect(page.getByRole('button', { name: /^Pay / }).textContent()).resolves.toContain('$25.51');
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
    await page.getByLabel('Security code (CVC)').fill('123');
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(`${shopOrigin}/orders/**`, { timeout: 90_000 });
    const order = new URL(page.url()).pathname;
    await until(`${order}'s status`, text('#status'), 'Paid');
    return order;
  }

  return {
    /** Buys once; the order page's text, where the reader finds the delivery id. */
    async buyFirst(): Promise<string> {
      browser = await launchChromium(path.join(clone.dir, '.data', 'tls', 'cert.pem'));
      page = await browser.context.newPage();
      firstOrder = await buy();
      await expect(text('#fulfilments')()).resolves.toBe('1');
      await expect(page.locator('[data-event-type="checkout.succeeded"]').count()).resolves.toBe(1);
      return page.locator('main').innerText();
    },

    async secondDeliveryThenRefund(retryAnswer: string) {
      const resent = /"id":"(whd_[0-9a-f]{32})"/.exec(retryAnswer)?.[1];
      await until('deliveries of checkout.succeeded', () => page.locator('[data-event-type="checkout.succeeded"]').count(), 2);
      // The same event again, as the delivery the retry made; fulfilled once all the same.
      expect([await cell(1, 1), await cell(1, 2)]).toEqual([await cell(0, 1), resent]);
      await expect(text('#fulfilments')()).resolves.toBe('1');
      await expect(page.getByText('Customer paid').locator('xpath=following-sibling::dd[1]').textContent()).resolves.toMatch(/^\$25\.51/);

      await buy(); // the first sale cannot be refunded alone
      await page.goto(`${shopOrigin}${firstOrder}`);
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Refund' }).click()]);
      await expect(page.locator('[role=alert]').count()).resolves.toBe(0);
      await until(`${firstOrder}'s status`, text('#status'), 'Refunded');
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
