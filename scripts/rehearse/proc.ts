/**
 * The rehearsal's OS processes are the tests' (test/support/processes.ts): each one's output in a log
 * file under the rehearsal's directory, the last of it in memory to explain a failure, and stopped as an
 * operator's supervisor stops it (SIGTERM, wait for the exit; SIGKILL only after a grace period, counted
 * as a failure). What else it needs to bring a server up: waiting for it, and ports.
 */
import net from 'node:net';
import { spawnLogged, type ServiceProcess } from '../../test/support/processes.js';

/** Output kept in memory per process: enough to explain a failure; the log file has the rest. */
const KEEP = 4_000;

export function startProc(logDir: string, name: string, file: string, args: string[], env: Record<string, string>, cwd?: string): ServiceProcess {
  return spawnLogged(name, file, args, { env, cwd, logDir, keep: KEEP });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it is true, or fails naming `what` (with the process's last output). */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, proc?: ServiceProcess): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - started;
    if (proc && proc.child.exitCode !== null) throw new Error(`${proc.name} exited while waiting for ${what}:\n${proc.output()}`);
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s${proc ? `\n${proc.output()}` : ''}`);
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
