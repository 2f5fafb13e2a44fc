/**
 * The rehearsal's OS processes: each one's output goes to a log file under the rehearsal's directory,
 * and the last lines stay in memory to explain a failure. Stopping is what an operator's supervisor
 * does: SIGTERM, wait for the exit (SIGKILL only after a grace period, counted as a failure).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface Proc {
  name: string;
  child: ChildProcess;
  tail: () => string;
  /** SIGTERM, then the exit; true when it ended by itself within `graceMs`. */
  stop: (graceMs?: number) => Promise<boolean>;
  exited: Promise<number | null>;
}

const running = new Set<Proc>();

export function startProc(logDir: string, name: string, file: string, args: string[], env: Record<string, string>, cwd?: string): Proc {
  mkdirSync(logDir, { recursive: true });
  const child = spawn(file, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(path.join(logDir, `${name}.log`), { flags: 'a' });
  let tail = '';
  const take = (chunk: Buffer) => {
    log.write(chunk);
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (err) => {
      take(Buffer.from(`spawn failed: ${err.message}\n`));
      resolve(-1);
    });
    // 'close', not 'exit': only then has all of its output been read (a failed start's last words included).
    child.once('close', (code, signal) => {
      take(Buffer.from(`[rehearse] ${name} exited (${code ?? signal})\n`));
      running.delete(proc);
      log.end();
      resolve(code);
    });
  });
  let gone = false;
  void exited.then(() => (gone = true));
  const proc: Proc = {
    name,
    child,
    tail: () => tail,
    exited,
    async stop(graceMs = 45_000) {
      if (gone) return true;
      child.kill('SIGTERM');
      const clean = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
      if (!clean) {
        child.kill('SIGKILL');
        await exited;
      }
      return clean;
    },
  };
  running.add(proc);
  return proc;
}

/** Whatever is still running when the rehearsal ends or fails: SIGTERM, then SIGKILL. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(20_000)));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it is true, or fails naming `what` (with the process's last output). */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, proc?: Proc): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - started;
    if (proc && proc.child.exitCode !== null) throw new Error(`${proc.name} exited while waiting for ${what}:\n${proc.tail()}`);
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s${proc ? `\n${proc.tail()}` : ''}`);
    await sleep(200);
  }
}

/** An HTTP GET on loopback answering 200 (an admin port's /readyz or /healthz). */
export async function httpOk(port: number, urlPath: string): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}${urlPath}`, { signal: AbortSignal.timeout(3_000) });
  await res.arrayBuffer();
  return res.status === 200;
}

export function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const handedOut = new Set<number>();

/**
 * A free port below the kernel's ephemeral range (32768 and up), from 10000 to 19999: ports the OS hands
 * out to other programs' `listen(0)` and outgoing connections on this busy machine never collide with it,
 * and a restarted process gets its port back.
 */
export async function lowPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * 10_000);
    if (!handedOut.has(port) && !(await tcpOpen(port))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port from 10000 to 19999');
}

/** A base port with `offsets` all free (Temporal's services take several ports from one base). */
export async function freePortBlock(offsets: number[]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Below 32768: Temporal stores membership ports in a PostgreSQL smallint.
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const taken = await Promise.all(offsets.map((o) => tcpOpen(base + o)));
    if (!taken.some(Boolean)) return base;
  }
  throw new Error('no free block of ports for Temporal');
}
