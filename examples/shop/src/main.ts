/**
 * Runs the example shop: `npm run shop` from the repository (see packages' READMEs and the root README,
 * "Integrate in ten minutes"). Settings, from the environment:
 *   PAYMENTS_API_KEY         a test key (mp_test_…); required
 *   PAYMENTS_API_URL         default https://localhost:3443/api/v1 (`npm start`)
 *   SHOP_PORT                default 4242; the shop serves HTTPS, as webhook URLs must be HTTPS
 *   SHOP_TLS_CERT, SHOP_TLS_KEY   default: `npm start`'s development certificate (.data/tls)
 *   PAYMENTS_WEBHOOK_SECRET  the endpoint's whsec_…; unset, the shop registers its endpoint at start
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startShop } from './server.js';

const repo = path.resolve(import.meta.dirname, '../../..');
const env = process.env;
if (!env.PAYMENTS_API_KEY) {
  console.error('Set PAYMENTS_API_KEY to a test key (npm start prints one: "Demo test key").');
  process.exit(1);
}
const shop = await startShop({
  apiKey: env.PAYMENTS_API_KEY,
  apiBaseUrl: env.PAYMENTS_API_URL ?? 'https://localhost:3443/api/v1',
  port: Number(env.SHOP_PORT ?? 4242),
  tls: {
    cert: readFileSync(env.SHOP_TLS_CERT ?? path.join(repo, '.data/tls/cert.pem')),
    key: readFileSync(env.SHOP_TLS_KEY ?? path.join(repo, '.data/tls/key.pem')),
  },
  webhookSecret: env.PAYMENTS_WEBHOOK_SECRET,
});
console.log(`Shop listening on ${shop.origin}; webhooks at ${shop.webhookUrl}`);
process.once('SIGINT', () => void shop.close().then(() => process.exit(0)));
