import { createServer } from 'node:net';
import type { Config } from '../config.js';
import { PORT_OFFSETS, type DerivedPortVariable, type PortVariable } from '../port-scheme.js';

/** A port `npm start` opens, on the host it opens it on, and the variable that sets it. */
export interface Listener {
  variable: PortVariable;
  host: string;
  port: number;
}

/**
 * A port `npm start` needs is taken: one line, naming the port and its variable, instead of the stack
 * of whichever server met it first (`listen EADDRINUSE …`, or a child server's exit code).
 */
export class PortInUseError extends Error {}

/** Every port `npm start` opens with this configuration: the API, the ops port, the worker's SDK metrics, and the embedded servers it runs. */
export function npmStartListeners(config: Config): Listener[] {
  const listeners: Listener[] = [];
  // Port 0 is any free port: nothing to check or clash.
  if (config.http.port) listeners.push({ variable: 'PORT', host: config.http.host, port: config.http.port });
  if (config.admin.port) listeners.push({ variable: 'ADMIN_PORT', host: config.admin.host, port: config.admin.port });
  if (config.temporal.metricsAddress) {
    const at = config.temporal.metricsAddress.lastIndexOf(':');
    const host = config.temporal.metricsAddress.slice(0, at);
    listeners.push({ variable: 'TEMPORAL_METRICS_ADDRESS', host, port: Number(config.temporal.metricsAddress.slice(at + 1)) });
  }
  if (!config.databaseUrl) listeners.push({ variable: 'DEV_POSTGRES_PORT', host: '127.0.0.1', port: config.dev.postgresPort });
  if (!config.temporal.address) {
    // The dev server's own HTTP, metrics and internal ports are free ones it picks itself; these two are ours.
    listeners.push({ variable: 'DEV_TEMPORAL_PORT', host: '127.0.0.1', port: config.dev.temporalPort });
    listeners.push({ variable: 'DEV_TEMPORAL_UI_PORT', host: '127.0.0.1', port: config.dev.temporalUiPort });
  }
  return listeners;
}

/**
 * Before anything starts, every port is tried. Checking first matters most for Temporal: a dev server
 * whose port is taken by another `npm start`'s dev server exits, but the one already there answers the
 * readiness probe, and this instance would have run on the other's Temporal.
 */
export async function assertPortsFree(listeners: Listener[], config: Config): Promise<void> {
  for (const [i, listener] of listeners.entries()) {
    const twin = listeners.slice(0, i).find((other) => other.port === listener.port);
    if (twin) throw new PortInUseError(`port ${listener.port} is both ${twin.variable} and ${listener.variable}; set one of them to another port`);
    if (await inUse(listener)) throw portInUse(listener, config);
  }
}

/**
 * The error to report for a failed start: a taken port named by its variable when the failure was one
 * (a listener's EADDRINUSE, the SDK's metrics exporter, or an embedded server that exited while one of
 * its ports is held by someone else), else the error itself.
 */
export function asPortInUse(err: unknown, listeners: Listener[], config: Config): unknown {
  if (err instanceof PortInUseError) return err;
  const e = err as NodeJS.ErrnoException & { port?: number };
  const byPort = e?.code === 'EADDRINUSE' ? listeners.find((l) => l.port === e.port) : undefined;
  if (byPort) return portInUse(byPort, config);
  const message = String(e?.message ?? '');
  const metrics = listeners.find((l) => l.variable === 'TEMPORAL_METRICS_ADDRESS');
  if (metrics && /metrics exporter.*address already in use/i.test(message)) return portInUse(metrics, config);
  return err;
}

/** An embedded server (PostgreSQL, Temporal) failed to start: if one of its ports is held by another process, that is why. */
export async function whyServerFailed(err: unknown, own: Listener[], config: Config): Promise<unknown> {
  for (const listener of own) if (await inUse(listener)) return portInUse(listener, config);
  return err;
}

function portInUse(listener: Listener, config: Config): PortInUseError {
  const { variable, port } = listener;
  const derived = config.derivedPorts?.variables.includes(variable as DerivedPortVariable)
    ? `, PORT+${PORT_OFFSETS[variable as DerivedPortVariable]} from PORT=${config.derivedPorts!.from}`
    : '';
  const free = variable === 'TEMPORAL_METRICS_ADDRESS' ? 'a free host:port (or off)' : 'a free port';
  // Only npm start's development configuration moves the other ports with PORT (src/port-scheme.ts).
  const follow = config.env === 'development' && variable === 'PORT' ? " (npm start's other ports follow it unless set)" : '';
  return new PortInUseError(`port ${port} (${variable}${derived}) is in use; set ${variable} to ${free}${follow}`);
}

/** Whether another process listens there: a listener of our own is opened and closed at once to find out. */
function inUse({ host, port }: Listener): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    // Any other failure (a host not on this machine, a privileged port) is left to the real start to report.
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE'));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(false)));
  });
}
