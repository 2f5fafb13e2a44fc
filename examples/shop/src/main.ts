/**
 * Runs the example shop: `npm run shop` from the repository (the root README, "Integrate"). Each setting
 * comes from the environment or, when unset there, from the `.data/demo.env` a running `npm start`
 * writes (examples/shop/README.md lists them), so beside `npm start` it needs none.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { startShop } from './server.js';

const repo = path.resolve(import.meta.dirname, '../../..');
const dataDir = path.resolve(repo, process.env.DATA_DIR ?? '.data');
const demoEnv = path.join(dataDir, 'demo.env');
if (existsSync(demoEnv)) process.loadEnvFile(demoEnv); // what the environment already sets wins
const env = process.env;
if (!env.PAYMENTS_API_URL || !env.PAYMENTS_API_KEY) {
  console.error(`No API to use: start it with npm start (it writes ${demoEnv}), or set PAYMENTS_API_URL and PAYMENTS_API_KEY.`);
  process.exit(1);
}
// The API's development certificate is signed by npm start's own CA: trusted here besides Node's CAs and
// NODE_EXTRA_CA_CERTS, whatever that already names.
if (env.PAYMENTS_CA_FILE) tls.setDefaultCACertificates([...tls.getCACertificates('default'), readFileSync(env.PAYMENTS_CA_FILE, 'utf8')]);

const shop = await startShop({
  apiKey: env.PAYMENTS_API_KEY,
  apiBaseUrl: env.PAYMENTS_API_URL,
  port: Number(env.SHOP_PORT ?? 4242),
  tls: {
    cert: readFileSync(env.SHOP_TLS_CERT ?? path.join(dataDir, 'tls/cert.pem')),
    key: readFileSync(env.SHOP_TLS_KEY ?? path.join(dataDir, 'tls/key.pem')),
  },
  webhookSecret: env.PAYMENTS_WEBHOOK_SECRET,
});
console.log(`Shop listening on ${shop.origin}; webhooks at ${shop.webhookUrl}`);
process.once('SIGINT', () => void shop.close().then(() => process.exit(0)));
