/**
 * Once per `npm test`: a real PostgreSQL (embedded, unless TEST_DATABASE_URL / DATABASE_URL is given) with
 * a migrated template database that each jest worker clones, a real Temporal dev server (unless
 * TEMPORAL_ADDRESS is given) and stripe-mock (unless STRIPE_MOCK_URL is given). Their addresses reach the
 * workers through the environment.
 */
import { chmodSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../src/db/orm.js';
import { openDatabase } from '../../src/main/database.js';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres.js';
import { startTemporalDevServer } from '../../src/dev/temporal-dev-server.js';
import { ensureDevCertificate } from '../../src/dev/tls.js';
import { TEMPLATE_DATABASE } from './names.js';
import { freePort } from '../../src/dev/free-port.js';
import { startStripeMock } from './stripe-mock.js';


declare global {
  var __PAYMENTS_TEST_STOPS__: (() => Promise<void>)[] | undefined;
}

export default async function globalSetup(): Promise<void> {
  const stops: (() => Promise<void>)[] = [];
  globalThis.__PAYMENTS_TEST_STOPS__ = stops;
  const root = mkdtempSync(path.join(os.tmpdir(), 'payments-test-'));
  chmodSync(root, 0o755); // the embedded server runs as the postgres user, which must reach its data directory
  process.env.TEST_ROOT = root;

  let adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!adminUrl) {
    const db = await startEmbeddedPostgres({ databaseDir: path.join(root, 'pg'), port: await freePort(), database: 'postgres' });
    stops.push(db.stop);
    adminUrl = db.url('postgres');
  }
  process.env.TEST_DATABASE_URL = adminUrl;

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
  await admin.query(`create database ${TEMPLATE_DATABASE}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
  const orm = await openDatabase(templateUrl.toString());
  await migrate(orm);
  await orm.close();

  if (!process.env.TEMPORAL_ADDRESS) {
    const temporal = await startTemporalDevServer({
      dataDir: path.join(root, 'temporal'),
      port: await freePort(),
      uiPort: null,
      cliPath: process.env.TEMPORAL_CLI_PATH,
    });
    stops.push(temporal.stop);
    process.env.TEMPORAL_ADDRESS = temporal.address;
  }

  // Stripe's own mock server, for the connector's contract tests (test/stripe): stateless, so one serves every file.
  if (!process.env.STRIPE_MOCK_URL) {
    const mock = await startStripeMock();
    stops.push(mock.stop);
    process.env.STRIPE_MOCK_URL = mock.url;
  }

  const tls = await ensureDevCertificate(path.join(root, 'api'));
  process.env.TEST_TLS_CA = tls.caFile;
  process.env.TEST_TLS_CERT = tls.certFile;
  process.env.TEST_TLS_KEY = tls.keyFile;
}
