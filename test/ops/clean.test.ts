import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DATA_ROOT, effectiveDataDir, prepareDataParent } from '../../src/dev/postgres-user.js';

/**
 * `npm run clean` removes what `npm start` keeps for a clone: its `.data`, and, as root, the database's
 * directory under /var/lib/payments-service that deleting the clone would leave behind. Run as the npm
 * script runs it, on a stand-in clone (DATA_ROOT's part only as root, where it exists).
 */
const root = process.getuid?.() === 0;
let clone: string;
let dataDir: string;

const clean = async (env: Record<string, string> = {}) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main/clean.ts'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, ...env },
      encoding: 'utf8',
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
};

beforeEach(() => {
  clone = mkdtempSync(path.join(tmpdir(), 'clean-clone-'));
  chmodSync(clone, 0o700); // as mktemp -d and home directories are: the postgres user cannot enter
  dataDir = path.join(clone, '.data');
  mkdirSync(path.join(dataDir, 'pg'), { recursive: true });
  writeFileSync(path.join(dataDir, 'demo-keys.json'), '{}');
});
afterEach(() => rmSync(clone, { recursive: true, force: true }));

describe('npm run clean', () => {
  it('removes .data, and as root the database directory kept outside the clone, saying what and how large', async () => {
    const database = effectiveDataDir(path.join(dataDir, 'pg'));
    if (root) {
      expect(database.startsWith(`${DATA_ROOT}/`)).toBe(true);
      prepareDataParent(database, path.join(dataDir, 'pg'));
      mkdirSync(database, { recursive: true });
      writeFileSync(path.join(database, 'PG_VERSION'), '18\n');
    }
    const { code, stdout } = await clean();
    expect(code).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(clone)).toBe(true);
    expect(stdout).toMatch(new RegExp(`^Removed ${dataDir} \\([^)]+\\): the data npm start keeps`, 'm'));
    if (root) {
      expect(existsSync(path.dirname(database))).toBe(false);
      expect(stdout).toMatch(new RegExp(`^Removed ${path.dirname(database)} \\([^)]+\\): the database, kept outside the clone`, 'm'));
    }
  });

  it('refuses while npm start runs on the clone, and removes nothing', async () => {
    writeFileSync(path.join(dataDir, 'banner.json'), JSON.stringify({ pid: process.pid, banner: '' }));
    const { code, stderr } = await clean();
    expect({ code, stderr }).toEqual({ code: 1, stderr: 'npm start is running on this clone: stop it (Ctrl-C) first, then run npm run clean again.\n' });
    expect(existsSync(path.join(dataDir, 'demo-keys.json'))).toBe(true);
  });

  it('says there is nothing to remove the second time', async () => {
    expect((await clean()).code).toBe(0);
    expect(await clean()).toMatchObject({ code: 0, stdout: `Nothing to remove: ${dataDir} is not there.\n` });
  });

  it('never removes a DATA_DIR that holds the clone itself', async () => {
    const { code, stderr } = await clean({ DATA_DIR: path.dirname(process.cwd()) });
    expect(code).toBe(1);
    expect(stderr).toMatch(/holds this clone/);
  });
});
