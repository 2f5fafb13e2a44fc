/**
 * A new user's first minutes, for test/ops/readme.test.ts: a fresh clone in a directory only
 * its owner can enter (mode 0700, as `mktemp -d` makes), the README's commands run there as the README
 * writes them, in an environment like a user's shell rather than this test run's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The quick start's two commands, read from the README's first shell block. */
export function readmeQuickStart(readme: string): string[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Quick start'));
  if (!section) throw new Error('README has no "## Quick start" section');
  const first = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return first.split('\n').filter((l) => l.trim());
}

export interface Clone {
  /** The private directory (0700) that holds the clone. */
  home: string;
  dir: string;
  remove: () => void;
}

/**
 * `git clone` of this work tree's HEAD into a new 0700 directory. The dependencies are hard links to this
 * tree's node_modules (a symbolic link across file systems), dated so run.sh finds them installed: a real
 * `npm install` takes minutes, and this test is about what comes after it.
 */
export function freshClone(repo: string): Clone {
  const home = mkdtempSync(path.join(os.tmpdir(), 'quick-start-'));
  const dir = path.join(home, 'clone');
  execFileSync('git', ['clone', '--quiet', repo, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    execFileSync('cp', ['-al', path.join(repo, 'node_modules'), path.join(dir, 'node_modules')], { stdio: 'ignore' });
  } catch {
    rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
    symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'));
  }
  for (const file of ['package.json', 'package-lock.json']) {
    const { atime, mtime } = statSync(path.join(repo, file));
    utimesSync(path.join(dir, file), atime, mtime);
  }
  return { home, dir, remove: () => rmSync(home, { recursive: true, force: true }) };
}

/**
 * The environment a user's shell would have: this test run's own settings removed (its PostgreSQL and
 * Temporal addresses, NODE_ENV=test, npm's and jest's variables, the tools run.sh found for it, and
 * this tree's node_modules on PATH), so the clone provisions and starts everything itself.
 */
export function userEnv(repo: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const ours = /^(TEST_|JEST_|npm_|TEMPORAL_|PAYMENTS_TEST|DATABASE_URL$|NODE_ENV$|NODE_OPTIONS$)/;
  for (const [name, value] of Object.entries(process.env)) if (!ours.test(name)) env[name] = value;
  env.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((p) => !p.startsWith(path.join(repo, 'node_modules')))
    .join(':');
  return { ...env, ...extra };
}

export interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ctrl-C at a terminal: SIGINT to the whole foreground process group. */
  interrupt: () => void;
}

/** A README line run by bash in its own process group, as a terminal runs a command. */
export function runLine(line: string, cwd: string, env: NodeJS.ProcessEnv): Running {
  const child = spawn('bash', ['-c', line], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (d) => (text += String(d)));
  child.stderr!.on('data', (d) => (text += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const interrupt = () => {
    try {
      process.kill(-child.pid!, 'SIGINT');
    } catch {
      /* already gone */
    }
  };
  return { child, output: () => text, exited, interrupt };
}

/** Waits until `text` shows in the output, or fails with the output so far when the command ends or time runs out. */
export async function waitFor(run: Running, text: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let ended = false;
  void run.exited.then(() => (ended = true));
  while (!run.output().includes(text)) {
    if (ended || Date.now() > deadline) {
      throw new Error(`${ended ? 'ended' : `no "${text}" within ${ms / 1000} s`}; output:\n${run.output()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Ends a run the test could not end cleanly: a second Ctrl-C (it exits at once, taking its servers), then SIGKILL. */
export async function forceStop(run: Running): Promise<void> {
  if (run.child.exitCode !== null || run.child.signalCode !== null) return;
  run.interrupt();
  const late = setTimeout(() => run.interrupt(), 20_000);
  const killed = setTimeout(() => process.kill(-run.child.pid!, 'SIGKILL'), 30_000);
  await run.exited;
  clearTimeout(late);
  clearTimeout(killed);
}

/**
 * Lines that a clean run never prints: stack frames, warnings and errors (pino levels 40 and up, as JSON
 * or as `npm start`'s short lines, and Node's own).
 */
export function troubleIn(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => /^\s+at\s/.test(l) || /"level":(40|50|60)/.test(l) || /\b(warning|error): |\(node:\d+\)|\bERR!|^npm error|unhandled/i.test(l));
}
