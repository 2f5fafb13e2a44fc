/**
 * OS processes a test or a run starts and ends: the service's API and worker processes of the fault
 * suite and the soak, the crash tests' workers, the production build's entry points, and the
 * rehearsal's servers. Each one's output goes to a log file (to read after a failure) and stays in
 * memory (to wait for a line, or to show why it died). Ending one is either a crash (`kill`: SIGKILL
 * unless told otherwise, no clean-up of any kind) or what an operator's supervisor does (`stop`: SIGTERM,
 * then SIGKILL after a grace period).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** What it printed so far, stdout and stderr together (the last `keep` characters, when given). */
  output: () => string;
  /** Resolves, with the milliseconds since the spawn, once `text` appears in its output; rejects when it exits first or the time is up. */
  waitFor: (text: string, timeoutMs?: number) => Promise<number>;
  /** Sends `signal` (SIGKILL by default) and resolves once the process is gone. */
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  /** SIGTERM, then the exit; SIGKILL once `graceMs` have passed. True when it ended by itself in time. */
  stop: (graceMs?: number) => Promise<boolean>;
  /** Once it has exited and all its output is read (a spawn that failed: code -1). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnOptions {
  /** The whole environment: nothing is inherited. */
  env: Record<string, string>;
  cwd?: string;
  /** Where `<name>-<pid>.log` goes. */
  logDir: string;
  /** Characters of output kept in memory; all of it unless given (a long run's chatty server). */
  keep?: number;
}

const running = new Set<ServiceProcess>();

export function spawnLogged(name: string, command: string, args: string[], opts: SpawnOptions): ServiceProcess {
  mkdirSync(opts.logDir, { recursive: true });
  const started = performance.now();
  const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(path.join(opts.logDir, `${name}-${child.pid ?? 'unstarted'}.log`), { flags: 'a' });
  let output = '';
  const take = (chunk: Buffer | string) => {
    log.write(chunk);
    output += chunk;
    if (opts.keep !== undefined && output.length > opts.keep) output = output.slice(-opts.keep);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    const end = (code: number | null, signal: NodeJS.Signals | null) => {
      gone = true;
      running.delete(proc);
      log.end();
      resolve({ code, signal });
    };
    child.once('error', (err) => {
      take(`spawn failed: ${err.message}\n`);
      end(-1, null);
    });
    // 'close', not 'exit': only then has all of its output been read (a failed start's last words included).
    child.once('close', (code, signal) => {
      take(`${name} exited (${code ?? signal})\n`);
      end(code, signal);
    });
  });
  const proc: ServiceProcess = {
    name,
    child,
    output: () => output,
    exited,
    async waitFor(text, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (gone) throw new Error(`${name} exited before printing "${text}":\n${output.slice(-3000)}`);
        if (Date.now() > until) throw new Error(`${name} did not print "${text}" in ${timeoutMs} ms:\n${output.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return performance.now() - started;
    },
    async kill(signal = 'SIGKILL') {
      if (!gone) child.kill(signal);
      await exited;
    },
    async stop(graceMs = 45_000) {
      if (gone) return true;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const clean = await Promise.race([exited.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), graceMs)))]);
      clearTimeout(timer);
      if (!clean) await proc.kill('SIGKILL');
      return clean;
    },
  };
  running.add(proc);
  return proc;
}

/** For the end of a test file: no process of a failed test outlives it (SIGKILL). */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill()));
}

/** For the end of a run: every process still running is stopped as a supervisor stops it. */
export async function stopAll(graceMs: number): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(graceMs)));
}
