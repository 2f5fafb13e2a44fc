/**
 * docker-compose.yml cannot run here (no container engine), but `npm run rehearse` runs the same
 * topology natively (docs/rehearsal.md). This keeps the two from drifting apart: both use the same files under
 * deploy/ and the same entry points, and the Temporal UI is published on no public address (docs/decisions.md, The Temporal UI in production).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ENTRY_POINTS } from '../../scripts/rehearse/services.js';
import { CLUSTER_LAYOUT, CLUSTER_SHARDS } from '../../scripts/rehearse/temporal-cluster.js';
import { ApiError } from '../../src/http/errors.js';
import { documentProblems } from '../support/api-document.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const compose = read('docker-compose.yml');
const dockerfile = read('Dockerfile');
const rehearsal = ['scripts/rehearse/temporal.ts', 'scripts/rehearse/services.ts'].map(read).join('\n');

/** One service's block of docker-compose.yml: from `  name:` to the next service or top-level key. */
function service(name: string): string {
  const lines = compose.split('\n');
  const start = lines.findIndex((l) => l === `  ${name}:` || l.startsWith(`  ${name}: &`));
  if (start < 0) throw new Error(`docker-compose.yml has no service ${name}`);
  const end = lines.findIndex((l, i) => i > start && /^ {0,2}\S/.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** `path.join(DEPLOY, 'a', 'b')` and `'deploy/a/b'` in the rehearsal's sources, as `deploy/a/b`. */
function rehearsalDeployPaths(): Set<string> {
  const found = new Set<string>([...rehearsal.matchAll(/'(deploy\/[^']+)'/g)].map((m) => m[1]));
  for (const m of rehearsal.matchAll(/path\.join\(DEPLOY((?:, '[^']+')+)\)/g)) {
    found.add(['deploy', ...[...m[1].matchAll(/'([^']+)'/g)].map((p) => p[1])].join('/'));
  }
  return found;
}

describe('docker-compose.yml and npm run rehearse share deploy/', () => {
  const used = rehearsalDeployPaths();

  it.each([
    ['temporal', 'deploy/temporal/config', './deploy/temporal:/etc/temporal/deploy'],
    ['temporal', 'deploy/temporal/dynamicconfig.yaml', './deploy/temporal:/etc/temporal/deploy'],
    ['temporal-schema', 'deploy/temporal', './deploy/temporal:/etc/temporal/deploy'],
    ['temporal-register', 'deploy/temporal', './deploy/temporal:/etc/temporal/deploy'],
    ['temporal-ui', 'deploy/temporal-ui/config', './deploy/temporal-ui:/etc/temporal-ui'],
    ['proxy', 'deploy/haproxy/haproxy.cfg', './deploy/haproxy:/usr/local/etc/haproxy'],
  ])('%s: the rehearsal uses %s and compose mounts it (%s)', (name, file, mount) => {
    expect(existsSync(path.join(root, file))).toBe(true);
    expect([...used].some((u) => u === file || u.startsWith(`${file}/`))).toBe(true);
    expect(service(name)).toContain(mount);
  });

  it('the Temporal server starts with the same config directory and environment name in both', () => {
    expect(existsSync(path.join(root, 'deploy/temporal/config/production.yaml'))).toBe(true);
    expect(rehearsal).toContain("'--config', 'deploy/temporal/config', '--env', 'production'");
    expect(service('temporal')).toMatch(/--config", "\/etc\/temporal\/deploy\/config", "--env", "production"/);
    expect(service('temporal')).toContain('TEMPORAL_DYNAMIC_CONFIG: /etc/temporal/deploy/dynamicconfig.yaml');
  });

  it('the schema and registration jobs run the same scripts', () => {
    expect(rehearsal).toContain("script('setup-schema.sh')");
    expect(rehearsal).toContain("script('register.sh')");
    expect(service('temporal-schema')).toContain('/etc/temporal/deploy/setup-schema.sh');
    expect(service('temporal-register')).toContain('/etc/temporal/deploy/register.sh');
  });

  it('the proxy gets every variable its configuration reads, in both', () => {
    const names = [...read('deploy/haproxy/haproxy.cfg').matchAll(/"\$\{(\w+)\}/g)].map((m) => m[1]);
    expect(new Set(names)).toEqual(new Set(['HTTPS_BIND', 'TLS_PEM', 'API_1', 'API_1_ADMIN', 'API_2', 'API_2_ADMIN']));
    for (const name of names) {
      expect(service('proxy')).toMatch(new RegExp(`\\b${name}: `));
      expect(read('scripts/rehearse/services.ts')).toMatch(new RegExp(`\\b${name}: `));
    }
  });

  it('the same entry points: the rehearsal, compose and the Dockerfile', () => {
    expect(ENTRY_POINTS).toEqual({ api: 'dist/api.js', worker: 'dist/worker.js', migrate: 'dist/migrate.js' });
    // The proxy's two servers: api-1, and api-2 made from it.
    expect(service('api-1')).toMatch(/^  api-1: &api$/m);
    expect(service('api-1')).toMatch(/command: \["node", "--enable-source-maps", "dist\/api\.js"\]/);
    expect(service('api-2')).toMatch(/^    <<: \*api$/m);
    expect(service('worker')).toMatch(/command: \["node", "--enable-source-maps", "dist\/worker\.js"\]/);
    expect(service('migrate')).toMatch(/command: \["node", "--enable-source-maps", "dist\/migrate\.js"\]/);
    expect(dockerfile).toMatch(/dist\/api\.js/);
    expect(rehearsal).toContain('ENTRY_POINTS[s.kind]');
    expect(rehearsal).toContain('ENTRY_POINTS.migrate');
    expect(compose).not.toMatch(/--import", "tsx"/);
  });

  it('the APIs and the worker are started again when they exit (a crash, a start that waited in vain), unless an operator stopped them', () => {
    // api-2 is api-1's block (`<<: *api`), its restart policy included.
    for (const name of ['api-1', 'worker']) expect(service(name)).toMatch(/^ {4}restart: unless-stopped$/m);
    expect(service('api-2')).toMatch(/^ {4}<<: \*api$/m);
    expect(service('api-2')).not.toMatch(/^ {4}restart:/m);
    // The one-shot jobs are retried a few times, never restarted once they succeeded.
    for (const name of ['migrate', 'temporal-schema', 'temporal-register']) expect(service(name)).toMatch(/^ {4}restart: on-failure:\d+$/m);
  });

  it("the APIs believe X-Forwarded-For from the proxy's own fixed address alone", () => {
    const address = service('proxy').match(/ipv4_address: \$\{PROXY_ADDRESS:-([\d.]+)\}/)?.[1];
    expect(address).toBeDefined();
    expect(service('api-1')).toContain(`TRUSTED_PROXIES: \${PROXY_ADDRESS:-${address}}`);
    expect(compose).not.toMatch(/172\.16\.0\.0\/12/);
    // The address lies in the default network's fixed subnet.
    const subnet = compose.match(/subnet: \$\{COMPOSE_SUBNET:-([\d.]+)\/24\}/)?.[1];
    expect(address!.split('.').slice(0, 3)).toEqual(subnet!.split('.').slice(0, 3));
  });

  it('the proxy reads whole requests within 10 s', () => {
    const cfg = read('deploy/haproxy/haproxy.cfg');
    expect(cfg).toMatch(/^\s+option http-buffer-request$/m);
    expect(cfg).toMatch(/^\s+timeout http-request 10s$/m);
  });

  it("the proxy's own 503 and 408 are the API's answers: its envelope and message, a request id, and what the API document asks of every answer", () => {
    const cfg = read('deploy/haproxy/haproxy.cfg');
    expect(cfg).toContain('unique-id-format "req_%[uuid(4),regsub(-,,g)]"');
    const requestId = `req_${'0123456789abcdef'.repeat(2)}`; // what the format makes: a v4 uuid's 32 hex digits
    for (const code of ['service_unavailable', 'request_timeout'] as const) {
      const expected = new ApiError(code);
      const line = cfg.split('\n').find((l) => l.trim().startsWith(`http-error status ${expected.status} `));
      expect(line).toBeDefined();
      const headers: Record<string, string> = { 'content-type': line!.match(/content-type "([^"]+)"/)![1] };
      for (const [, name, value] of line!.matchAll(/ hdr ([\w-]+) ("[^"]*"|\S+)/g)) headers[name.toLowerCase()] = value.replace(/^"|"$/g, '').replace('%[unique-id]', requestId);
      const body = JSON.parse(JSON.parse(line!.match(/lf-string ("(?:[^"\\]|\\.)*")/)![1]).replaceAll('%[unique-id]', requestId));
      expect(body).toMatchObject({ success: false, error: { type: expected.type, message: expected.message, requestId } });
      expect(headers['x-request-id']).toBe(requestId);
      expect(documentProblems('POST', '/api/checkout/sessions', { status: expected.status, headers, body })).toEqual([]);
      if (expected.status === 503) expect([headers['retry-after'], body.error.retryAfter]).toEqual(['1', 1]);
    }
  });

  it('every app process seals Temporal payloads and its worker refuses any that is not sealed', () => {
    // A plain-JSON `decide` update from anyone who reaches Temporal must not move money (issue 43).
    const appEnv = compose.slice(compose.indexOf('x-app-env: &app-env'), compose.indexOf('\nservices:'));
    expect(appEnv).toMatch(/^ {2}PAYLOAD_REQUIRE_SEALED: "true"$/m);
    expect(appEnv).toMatch(/^ {2}PAYLOAD_ENCRYPTION_KEYS: \$\{PAYLOAD_ENCRYPTION_KEYS:\?/m);
    for (const name of ['worker', 'api-1', 'migrate']) expect(service(name)).toContain('<<: *app-env');
    expect(compose).not.toMatch(/PAYLOAD_REQUIRE_SEALED: "?false/);
  });

  it('the admin port is on loopback but where HAProxy must reach /readyz, and there it asks for ADMIN_TOKEN', () => {
    // The image leaves ADMIN_HOST to its loopback default: /metrics answered anyone who reached the container.
    expect(dockerfile).not.toMatch(/^\s*(ENV\s+)?ADMIN_HOST=/m);
    expect(service('api-1')).toMatch(/^ {6}ADMIN_HOST: 0\.0\.0\.0$/m);
    expect(service('api-1')).toMatch(/^ {6}ADMIN_TOKEN: \$\{ADMIN_TOKEN:\?/m);
    expect(service('api-2')).toMatch(/^ {4}<<: \*api$/m);
    // Nowhere else: the worker's and the one-shot jobs' ports stay on loopback.
    expect(compose.match(/ADMIN_HOST:/g)).toHaveLength(1);
    expect(read('deploy/haproxy/haproxy.cfg')).toMatch(/option httpchk GET \/readyz/);
  });

  it("docs/production.md's checklist says what production requires", () => {
    const production = read('docs/production.md');
    const checklist = production.slice(production.indexOf('## What a deployment needs'));
    for (const needed of ['TLS_CERT_FILE', 'TRUST_PROXY', 'PAYLOAD_REQUIRE_SEALED=true', 'ADMIN_TOKEN', 'authorizer', 'mTLS']) {
      expect(checklist).toContain(needed);
    }
  });

  it('the Temporal UI is published on loopback only, in compose and in the rehearsal', () => {
    const ports = [...service('temporal-ui').matchAll(/^\s+- "([^"]+)"$/gm)].map((m) => m[1]).filter((p) => /:\d+$/.test(p));
    expect(ports.length).toBeGreaterThan(0);
    for (const p of ports) expect(p).toMatch(/^127\.0\.0\.1:/);
    expect(rehearsal).toContain("TEMPORAL_UI_BIND: '127.0.0.1'");
    expect(read('deploy/temporal-ui/config/production.yaml')).toContain('host: {{ env "TEMPORAL_UI_BIND" | default "127.0.0.1" }}');
  });
});

/**
 * Temporal as a cluster (docs/scaling.md): docker-compose.temporal-cluster.yml over docker-compose.yml,
 * and `npm run rehearse -- --temporal cluster` (scripts/rehearse/temporal-cluster.ts), the same layout
 * with the same files.
 */
describe('the Temporal cluster: compose and the rehearsal have one layout', () => {
  const cluster = read('docker-compose.temporal-cluster.yml');
  const clusterRehearsal = read('scripts/rehearse/temporal-cluster.ts');
  /** The services of the override running `start --service=<role>`, with how many hosts each runs. */
  const hostsByRole = () => {
    const counts: Record<string, number> = {};
    for (const block of cluster.split(/\n(?= {2}[a-z][\w-]*:)/)) {
      const role = block.match(/start --service=(\w+)/)?.[1];
      if (!role) continue;
      if (role !== 'frontend') counts[role] = (counts[role] ?? 0) + Number(block.match(/replicas: (\d+)/)?.[1] ?? 1);
    }
    // The frontends are named, one service each (the proxy lists each), sharing the first one's block.
    counts.frontend = cluster.match(/^ {2}temporal-frontend-\d+:/gm)?.length ?? 0;
    return counts;
  };

  it('as many frontend, history, matching and worker hosts as the rehearsal starts', () => {
    expect(cluster).toMatch(/^ {2}temporal-frontend-1: &temporal-frontend$/m);
    expect(cluster).toMatch(/^ {2}temporal-frontend-2:\n {4}<<: \*temporal-frontend$/m);
    expect(hostsByRole()).toEqual(CLUSTER_LAYOUT);
    expect(Object.keys(CLUSTER_LAYOUT)).toEqual(['frontend', 'history', 'matching', 'worker']);
  });

  it('every host runs the single server\'s config, one service each, broadcasting its own address', () => {
    const starts = [...cluster.matchAll(/"TEMPORAL_BROADCAST_ADDRESS=\$\$\(hostname -i\) exec temporal-server --root \/ --config \/etc\/temporal\/deploy\/config --env production --allow-no-auth start --service=(\w+)"/g)];
    expect(starts.map((m) => m[1]).sort()).toEqual(['frontend', 'history', 'matching', 'worker']);
    expect(clusterRehearsal).toContain("'--config', 'deploy/temporal/config', '--env', 'production', '--allow-no-auth', 'start', `--service=${role}`");
    expect(cluster).toContain('- ./deploy/temporal:/etc/temporal/deploy:ro');
    expect(cluster).toContain('TEMPORAL_DYNAMIC_CONFIG: /etc/temporal/deploy/dynamicconfig.yaml');
  });

  it('the same shard count, and the frontends behind the same proxy file at the address the app already uses', () => {
    expect(cluster).toContain(`TEMPORAL_HISTORY_SHARDS: \${TEMPORAL_HISTORY_SHARDS:-${CLUSTER_SHARDS}}`);
    expect(clusterRehearsal).toContain('TEMPORAL_HISTORY_SHARDS: String(CLUSTER_SHARDS)');
    expect(cluster).toContain('entrypoint: ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/temporal-frontend.cfg"]');
    expect(clusterRehearsal).toContain("path.join(DEPLOY, 'haproxy', 'temporal-frontend.cfg')");
    for (const name of ['TEMPORAL_BIND', 'FRONTEND_1', 'FRONTEND_2']) {
      expect(read('deploy/haproxy/temporal-frontend.cfg')).toContain(`\${${name}}`);
      expect(cluster).toMatch(new RegExp(`^ {6}${name}: `, 'm'));
      expect(clusterRehearsal).toMatch(new RegExp(`${name}: `));
    }
    // The app, the UI and the register job keep reaching temporal:7233, now the proxy.
    expect(compose).toContain('TEMPORAL_ADDRESS: temporal:7233');
    expect(cluster).toContain('TEMPORAL_BIND: ":7233"');
    expect(cluster).toContain('TEMPORAL_FRONTEND_ADDRESS: temporal:7233');
    expect(read('deploy/temporal/config/production.yaml')).toContain('env "TEMPORAL_FRONTEND_ADDRESS"');
  });
});
