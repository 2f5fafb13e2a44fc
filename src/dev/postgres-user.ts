import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * PostgreSQL refuses to run as root, so as root the embedded server runs as the `postgres` system user
 * (created when missing). That user must reach its binaries and its data directory, and a clone in a
 * directory only its owner can enter (a home directory, `mktemp -d`) hides both. So, as root only, what
 * it cannot reach moves to where it can: the binaries to a copy under CACHE_ROOT, the data directory to
 * DATA_ROOT. A user who is not root runs PostgreSQL as themselves, and nothing moves.
 */
export interface RunAs {
  uid: number;
  gid: number;
}

export const CACHE_ROOT = '/var/cache/payments-service';
export const DATA_ROOT = '/var/lib/payments-service';
const NAME = 'postgres';

const isRoot = () => process.getuid?.() === 0;

function idOf(flag: '-u' | '-g', name: string): number | null {
  try {
    return Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    return null;
  }
}

/** The user PostgreSQL runs as when it may not be the current one (root), without creating it. */
export function postgresUser(): RunAs | null {
  if (!isRoot()) return null;
  const uid = idOf('-u', NAME);
  const gid = idOf('-g', NAME);
  // Not created yet: only the permissions every user has count.
  return uid === null || gid === null ? { uid: -1, gid: -1 } : { uid, gid };
}

/** As root, the `postgres` system user, created (with its group) if this machine has none. */
export function ensurePostgresUser(): RunAs | null {
  const who = postgresUser();
  if (!who || who.uid >= 0) return who;
  const group = groupExists(NAME) ? ['-g', NAME] : ['--user-group'];
  execFileSync('useradd', ['--system', ...group, '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', NAME], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return postgresUser();
}

function groupExists(name: string): boolean {
  try {
    execFileSync('getent', ['group', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `who` may enter `dir` and every directory above it, from the mode bits (owner, group or
 * other). Supplementary groups and ACLs are not consulted, so the answer errs towards "no", which only
 * moves things that could have stayed. A part that does not exist yet counts as reachable: it will be
 * made by this process with the usual 0755.
 */
export function canEnter(dir: string, who: RunAs): boolean {
  let at = path.resolve(dir);
  for (;;) {
    let st;
    try {
      st = statSync(at);
    } catch {
      st = null;
    }
    if (st) {
      const bits = st.uid === who.uid ? st.mode >> 6 : st.gid === who.gid ? st.mode >> 3 : st.mode;
      if (!(bits & 0o1)) return false;
    }
    const up = path.dirname(at);
    if (up === at) return true;
    at = up;
  }
}

/**
 * Where the data directory asked for really is: itself, unless PostgreSQL runs as another user who
 * cannot reach it; then one directory per asked-for path under DATA_ROOT, so a clone keeps its data
 * between starts, and `admin` finds the server `npm start` runs.
 */
export function effectiveDataDir(requested: string, who: RunAs | null = postgresUser()): string {
  const asked = path.resolve(requested);
  if (!who || canEnter(path.dirname(asked), who)) return asked;
  const key = createHash('sha256').update(asked).digest('hex').slice(0, 12);
  return path.join(DATA_ROOT, `${path.basename(path.dirname(asked))}-${key}`.replace(/^\.+/, ''), path.basename(asked));
}

/** Makes the relocated data directory's parent, noting which clone it belongs to. */
export function prepareDataParent(dataDir: string, requested: string): void {
  const parent = path.dirname(dataDir);
  if (existsSync(parent)) return;
  mkdirSync(parent, { recursive: true, mode: 0o755 });
  if (!parent.startsWith(`${DATA_ROOT}/`)) return;
  // Explicitly, whatever root's umask: the server's user must pass through both.
  for (const dir of [DATA_ROOT, parent]) chmodSync(dir, 0o755);
  writeFileSync(path.join(parent, 'ASKED-FOR'), `${path.resolve(requested)}\n`);
}

/**
 * The binaries' directory (`bin`, `lib`, `share` of the npm package), copied once per version to
 * CACHE_ROOT when `who` cannot reach it where npm put it. PostgreSQL finds `lib` and `share` beside its
 * real executable, so a symbolic link would not do.
 */
export function reachableBinaries(nativeDir: string, version: string, who: RunAs | null): string {
  if (!who || canEnter(path.join(nativeDir, 'bin'), who)) return nativeDir;
  const copy = path.join(CACHE_ROOT, `postgres-${version}`);
  if (existsSync(path.join(copy, 'bin', 'postgres'))) return copy;
  mkdirSync(CACHE_ROOT, { recursive: true, mode: 0o755 });
  chmodSync(CACHE_ROOT, 0o755);
  const staging = `${copy}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
  chmodSync(staging, 0o755);
  try {
    renameSync(staging, copy);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true }); // another start copied it first
    if (!existsSync(path.join(copy, 'bin', 'postgres'))) throw err;
  }
  return copy;
}
