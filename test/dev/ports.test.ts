/**
 * Issue 42, section 2: `PORT=8443 npm start` alone is enough for a second instance (its other ports
 * follow PORT), and a port that is taken stops `npm start` with one line naming its variable. The two
 * instances side by side: test/faults/second-instance.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { asPortInUse, npmStartListeners, PortInUseError } from '../../src/dev/listen-ports.js';
import { freePort } from '../../src/dev/free-port.js';
import { runLine, userEnv } from '../support/quick-start.js';

const repo = process.cwd();
const DEFAULTS = { PORT: 3443, ADMIN_PORT: 9464, TEMPORAL_METRICS_ADDRESS: 9465, DEV_POSTGRES_PORT: 54329, DEV_TEMPORAL_PORT: 7233, DEV_TEMPORAL_UI_PORT: 8233 };

/** What `npm start` opens under this environment, as `variable → port`. */
const portsOf = (env: Record<string, string>, defaultEnv?: 'production') =>
  Object.fromEntries(npmStartListeners(loadConfig(env, defaultEnv)).map((l) => [l.variable, l.port]));

describe('the ports of npm start', () => {
  it('are the documented defaults when PORT is not set, or set to its default', () => {
    expect(portsOf({})).toEqual(DEFAULTS);
    expect(portsOf({ PORT: '3443' })).toEqual(DEFAULTS);
    expect(loadConfig({}).derivedPorts).toBeNull();
  });

  it('follow PORT when it is set to another port: PORT+1 to PORT+5, none of them a default instance’s', () => {
    const ports = portsOf({ PORT: '8443' });
    expect(ports).toEqual({ PORT: 8443, ADMIN_PORT: 8444, TEMPORAL_METRICS_ADDRESS: 8445, DEV_POSTGRES_PORT: 8446, DEV_TEMPORAL_PORT: 8447, DEV_TEMPORAL_UI_PORT: 8448 });
    expect(Object.values(ports).filter((port) => Object.values(DEFAULTS).includes(port))).toEqual([]);
    const config = loadConfig({ PORT: '8443' });
    expect(config.temporal.metricsAddress).toBe('127.0.0.1:8445');
    // The Web UI of this instance may call its codec endpoint; the default UI's origin is another instance's.
    expect(config.codec.corsOrigins).toEqual(['http://localhost:8448', 'http://127.0.0.1:8448']);
    expect(config.derivedPorts).toEqual({ from: 8443, variables: ['ADMIN_PORT', 'TEMPORAL_METRICS_ADDRESS', 'DEV_POSTGRES_PORT', 'DEV_TEMPORAL_PORT', 'DEV_TEMPORAL_UI_PORT'] });
  });

  it('a variable that is set wins over PORT; metrics off stay off', () => {
    expect(portsOf({ PORT: '8443', ADMIN_PORT: '9999', TEMPORAL_METRICS_ADDRESS: 'off' })).toEqual({
      PORT: 8443, ADMIN_PORT: 9999, DEV_POSTGRES_PORT: 8446, DEV_TEMPORAL_PORT: 8447, DEV_TEMPORAL_UI_PORT: 8448,
    });
    expect(loadConfig({ PORT: '8443', ADMIN_PORT: '9999' }).derivedPorts?.variables).not.toContain('ADMIN_PORT');
  });

  it('follow PORT under npm start only: production and test runs name every port they use', () => {
    expect(portsOf({ PORT: '8443' }, 'production')).toMatchObject({ ADMIN_PORT: 9464, TEMPORAL_METRICS_ADDRESS: 9465 });
    expect(loadConfig({ PORT: '8443', NODE_ENV: 'test' }).admin.port).toBe(9464);
    expect(loadConfig({ PORT: '0' }).admin.port).toBe(9464); // any free port: no number to follow
  });

  it('a PORT too high to follow is refused with one line naming what to set', () => {
    expect(() => loadConfig({ PORT: '65533' })).toThrow(
      'Invalid configuration: DEV_POSTGRES_PORT follows PORT (PORT+3), which leaves no room above PORT=65533; choose a PORT up to 65530, or set DEV_POSTGRES_PORT',
    );
  });

  it('a listener that meets a taken port after the check (a race) is named as well: the API’s EADDRINUSE, the SDK’s metrics exporter', () => {
    const config = loadConfig({ PORT: '8443' });
    const listeners = npmStartListeners(config);
    const listen = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8443'), { code: 'EADDRINUSE', port: 8443 });
    expect((asPortInUse(listen, listeners, config) as Error).message).toBe(
      "port 8443 (PORT) is in use; set PORT to a free port (npm start's other ports follow it unless set)",
    );
    const exporter = new Error('Failed to start prometheus metrics exporter: Address already in use (os error 98)');
    expect(asPortInUse(exporter, listeners, config)).toEqual(
      new PortInUseError('port 8445 (TEMPORAL_METRICS_ADDRESS, PORT+2 from PORT=8443) is in use; set TEMPORAL_METRICS_ADDRESS to a free host:port (or off)'),
    );
    const other = new Error('something else');
    expect(asPortInUse(other, listeners, config)).toBe(other);
  });
});

describe('npm start with a port taken', () => {
  let dataDir: string;
  let holder: Server | undefined;
  beforeEach(() => (dataDir = mkdtempSync(path.join(os.tmpdir(), 'taken-port-'))));
  afterEach(async () => {
    await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
    holder = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** `npm start` as a user runs it, each port given (one of them held by another process); what it printed, and how it ended. */
  async function startWith(ports: Record<string, string>, taken: number) {
    holder = createServer();
    await new Promise<void>((resolve) => holder!.listen(taken, '127.0.0.1', resolve));
    const run = runLine('npm start', repo, userEnv(repo, { ...ports, DATA_DIR: dataDir }));
    const ended = await run.exited;
    // npm's own header (`> payments-service@0.1.0 start`, `> bash scripts/run.sh start`) is not the service's.
    const lines = run.output().split('\n').filter((line) => line.trim() && !line.startsWith('> '));
    return { ended, lines, output: run.output() };
  }

  const VARIABLES = ['PORT', 'ADMIN_PORT', 'TEMPORAL_METRICS_ADDRESS', 'DEV_POSTGRES_PORT', 'DEV_TEMPORAL_PORT', 'DEV_TEMPORAL_UI_PORT'] as const;

  it.each(VARIABLES)('%s: one line naming the port and its variable, exit 1, no stack', async (variable) => {
    const ports: Record<string, string> = {};
    for (const name of VARIABLES) ports[name] = String(await freePort());
    const taken = Number(ports[variable]);
    ports.TEMPORAL_METRICS_ADDRESS = `127.0.0.1:${ports.TEMPORAL_METRICS_ADDRESS}`;
    const { ended, lines, output } = await startWith(ports, taken);
    const free = variable === 'TEMPORAL_METRICS_ADDRESS' ? 'a free host:port (or off)' : 'a free port';
    const follow = variable === 'PORT' ? " (npm start's other ports follow it unless set)" : '';
    expect({ ended, lines }).toEqual({
      ended: { code: 1, signal: null },
      lines: [`start failed: port ${taken} (${variable}) is in use; set ${variable} to ${free}${follow}`],
    });
    expect(output).not.toMatch(/^\s+at /m);
  }, 60_000);

  it('a port derived from PORT: the line says which PORT it follows', async () => {
    const port = await freeBlock(6);
    const { ended, lines } = await startWith({ PORT: String(port) }, port + 4);
    expect({ ended, lines }).toEqual({
      ended: { code: 1, signal: null },
      lines: [`start failed: port ${port + 4} (DEV_TEMPORAL_PORT, PORT+4 from PORT=${port}) is in use; set DEV_TEMPORAL_PORT to a free port`],
    });
  }, 60_000);
});

/** The first of `size` consecutive free loopback ports. */
async function freeBlock(size: number): Promise<number> {
  for (;;) {
    const first = 20_000 + Math.floor(Math.random() * 10_000);
    const ports = Array.from({ length: size }, (_, i) => first + i);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return first;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
