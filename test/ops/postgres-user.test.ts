import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canEnter, DATA_ROOT, effectiveDataDir } from '../../src/dev/postgres-user.js';

/** Where embedded PostgreSQL's data goes when, as root, it runs as a user who may not reach the clone. */
const someoneElse = { uid: 2_000_000_001, gid: 2_000_000_001 };
let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pg-reach-')); // 0700, as `mktemp -d` makes it
  mkdirSync(path.join(home, 'clone', '.data'), { recursive: true });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('canEnter', () => {
  it('is false below a directory only its owner can enter, and true once others may', () => {
    expect(canEnter(path.join(home, 'clone', '.data'), someoneElse)).toBe(false);
    chmodSync(home, 0o755);
    expect(canEnter(path.join(home, 'clone', '.data'), someoneElse)).toBe(true);
  });

  it("is true for the directory's owner", () => {
    const me = { uid: process.getuid!(), gid: process.getgid!() };
    expect(canEnter(path.join(home, 'clone', '.data'), me)).toBe(true);
  });

  it('counts a part not made yet as reachable (it is made 0755)', () => {
    chmodSync(home, 0o755);
    expect(canEnter(path.join(home, 'clone', 'not-yet', 'deeper'), someoneElse)).toBe(true);
  });
});

describe('effectiveDataDir', () => {
  it('is the directory asked for when PostgreSQL runs as the current user', () => {
    expect(effectiveDataDir(path.join(home, 'clone', '.data', 'pg'), null)).toBe(path.join(home, 'clone', '.data', 'pg'));
  });

  it('is the directory asked for when the server user can reach it', () => {
    chmodSync(home, 0o755);
    expect(effectiveDataDir(path.join(home, 'clone', '.data', 'pg'), someoneElse)).toBe(path.join(home, 'clone', '.data', 'pg'));
  });

  it('moves under /var/lib/payments-service when it cannot, to the same place every time, one per clone', () => {
    const asked = path.join(home, 'clone', '.data', 'pg');
    const moved = effectiveDataDir(asked, someoneElse);
    expect(moved).toMatch(new RegExp(`^${DATA_ROOT}/data-[0-9a-f]{12}/pg$`));
    expect(effectiveDataDir(asked, someoneElse)).toBe(moved);
    mkdirSync(path.join(home, 'other', '.data'), { recursive: true });
    expect(effectiveDataDir(path.join(home, 'other', '.data', 'pg'), someoneElse)).not.toBe(moved);
  });
});
