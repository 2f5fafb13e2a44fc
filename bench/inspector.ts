/**
 * A DevTools protocol session with a process started with `--inspect=127.0.0.1:<port>`, for the probes
 * that profile a window of load rather than a whole process's life (BENCH_CPU_PROF): a CPU profile and
 * a sampling heap profile that keeps the objects already collected, so its sum is what was allocated.
 */
export interface Inspector {
  send<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  close(): void;
}

export async function connectInspector(port: number): Promise<Inspector> {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  socket.onmessage = (message) => {
    const reply = JSON.parse(String(message.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const pending = reply.id === undefined ? undefined : waiting.get(reply.id);
    if (!pending) return; // an event, not an answer
    waiting.delete(reply.id!);
    if (reply.error) pending.reject(new Error(reply.error.message));
    else pending.resolve(reply.result);
  };
  return {
    send: <T>(method: string, params: Record<string, unknown> = {}) =>
      new Promise<T>((resolve, reject) => {
        const id = ++next;
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: CpuNode[];
  samples: number[];
  timeDeltas: number[];
}
interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

/**
 * Where a frame's code lives: a package (`pino`, `@koa/router`), the service's own file, a part of Node
 * (`node:_tls_wrap`), or V8's own entries (`(garbage collector)`, `(program)`, `(idle)`).
 */
export function placeOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url;
  // The service's code, compiled (.data/bench-dist/src/…) or not (src/…); the floors' files as they are.
  const own = /\/((?:src|bench|activities|contracts|workflows)\/.*)$/.exec(url);
  return own ? own[1].replace(/\.(js|ts)$/, '') : url;
}

/** Milliseconds of self time per place and per function over a CPU profile, most first. */
export function cpuByPlace(profile: CpuProfile): { places: Map<string, number>; functions: Map<string, number>; totalMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = byId.get(id)!.callFrame;
    const place = placeOf(frame);
    places.set(place, (places.get(place) ?? 0) + ms);
    const fn = `${frame.functionName || '(anonymous)'} ${place}:${frame.lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
    totalMs += ms;
  });
  return { places, functions, totalMs };
}

/** Bytes allocated per place and per function over a sampling heap profile (each node's own allocations). */
export function bytesByPlace(head: HeapNode): { places: Map<string, number>; functions: Map<string, number>; totalBytes: number } {
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  let totalBytes = 0;
  const walk = (node: HeapNode) => {
    if (node.selfSize) {
      const place = placeOf(node.callFrame);
      places.set(place, (places.get(place) ?? 0) + node.selfSize);
      const fn = `${node.callFrame.functionName || '(anonymous)'} ${place}:${node.callFrame.lineNumber + 1}`;
      functions.set(fn, (functions.get(fn) ?? 0) + node.selfSize);
      totalBytes += node.selfSize;
    }
    node.children.forEach(walk);
  };
  walk(head);
  return { places, functions, totalBytes };
}

/** A CPU profile of whatever runs during `during()`, sampled every `intervalUs`. */
export async function profileCpu(inspector: Inspector, during: () => Promise<unknown>, intervalUs = 200): Promise<CpuProfile> {
  await inspector.send('Profiler.enable');
  await inspector.send('Profiler.setSamplingInterval', { interval: intervalUs });
  await inspector.send('Profiler.start');
  await during();
  const { profile } = await inspector.send<{ profile: CpuProfile }>('Profiler.stop');
  await inspector.send('Profiler.disable');
  return profile;
}

/**
 * A sampling heap profile of what `during()` allocates, the objects already collected included; with
 * `survivorsOnly`, only what outlived a scavenge (promoted to the old space, or alive still): what makes
 * the old space grow, and so the mark-compacts.
 */
export async function profileAllocations(inspector: Inspector, during: () => Promise<unknown>, intervalBytes = 4096, survivorsOnly = false): Promise<HeapNode> {
  await inspector.send('HeapProfiler.enable');
  await inspector.send('HeapProfiler.startSampling', {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !survivorsOnly,
  });
  await during();
  const { profile } = await inspector.send<{ profile: { head: HeapNode } }>('HeapProfiler.stopSampling');
  await inspector.send('HeapProfiler.disable');
  return profile.head;
}
