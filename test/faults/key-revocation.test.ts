import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { HttpClient } from '../support/http.js';
import { API_KEY_LISTENER_NAME } from '../../src/modules/businesses/api-key.cache.js';
import { until } from './support/flows.js';
import { useStack } from '../support/use-stack.js';
import { sql } from '../support/payments.js';

/**
 * Revocation through the API key cache (docs/decisions.md, Hot paths): each API process keeps keys in memory and forgets them
 * when PostgreSQL NOTIFYs a change, but refusal does not wait for that: the key's rate-limit statement
 * confirms the key unrevoked on every request (docs/decisions.md, API key cache). A key revoked by the
 * admin CLI is refused by the very first request after the CLI exits, on each process, though both had
 * it cached.
 */
const stack = useStack({}, { processes: 'key_revocation' });
let apis: HttpClient[];

beforeAll(async () => {
  const api1 = await stack.processes.api({ name: 'api-1' });
  const api2 = await stack.processes.api({ name: 'api-2' });
  apis = [stack.client(api1.origin), stack.client(api2.origin)];
}, 240_000);

const list = (api: HttpClient, key: string) => api.get('/api/checkout/sessions?limit=1', { key });

it('a key the admin CLI revokes is refused by both API processes at the next request, though both had it cached', async () => {
  const biz = await stack.business();
  // Both processes LISTEN (their caches serve entries only then).
  await until('both API processes to listen for key changes', async () => {
    const [row] = await sql<{ n: number }>(stack,
      'select count(*)::int as n from pg_stat_activity where application_name = ? and datname = current_database()',
      [API_KEY_LISTENER_NAME],
    );
    return row.n === 2;
  });
  for (const api of apis) for (let i = 0; i < 3; i++) expect((await list(api, biz.testKey)).status).toBe(200);
  const [key] = await sql<{ id: string }>(stack, `select id from api_keys where business_id = ? and mode = 'test'`, [biz.id]);

  // The operator's own command, as a process of its own on the same database.
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'key', 'revoke', key.id], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', ALLOW_TEST_ENV: 'true', DATABASE_URL: stack.databaseUrl },
  });
  expect(stdout).toContain(`Revoked ${key.id}`);

  // Both at once, the moment the CLI has exited: no wait for the notification.
  const first = await Promise.all(apis.map((api) => list(api, biz.testKey)));
  for (const res of first) {
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', message: 'Invalid API key' });
  }
  // And it stays refused (nothing re-caches a revoked key).
  for (const api of apis) expect((await list(api, biz.testKey)).status).toBe(401);
}, 120_000);
