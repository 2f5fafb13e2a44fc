/**
 * A reference for (a), not one of the floors: the statements a session create must make, by hand
 * on raw `pg` (prepared, pool of 10), with the service's own validation, totals and response view, and
 * nothing else (no ORM, no middleware, no transaction). `REFERENCE=writes` makes only the writes: the
 * session and its items, one `INSERT` statement (4 rows and their indexes, where F2 writes one row).
 * `REFERENCE=work` adds what every API request pays first: the key lookup and the shared rate-limit
 * count, one statement each. It measures how far above (a) the work itself allows this machine to go,
 * so a miss against F2 can be told apart from overhead. Own process, like the floors.
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import pg from 'pg';
import { newId, newSessionId } from '../../src/domain/ids.js';
import { hashApiKey } from '../../src/modules/businesses/index.js';
import {
  type CheckoutSession,
  type SessionItem,
  createSessionInput,
  sessionView,
  sessionTotals,
} from '../../src/modules/checkout/index.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const withRequestWork = process.env.REFERENCE === 'work';

const KEY_LOOKUP = `select k.id as key_id, k.mode, b.id, b.fee_bps, b.fee_fixed_cents
  from api_keys k join businesses b on b.id = k.business_id where k.secret_hash = $1 and k.revoked_at is null`;
// One fixed-window counter, as rate-limiter-flexible's PostgreSQL store keeps it (expiry in epoch ms).
const COUNT = `insert into rate_limit_counters as r (key, points, expire) values ($1, 1, $2::bigint + 60000)
  on conflict (key) do update set
    points = case when r.expire <= $2::bigint then 1 else r.points + 1 end,
    expire = case when r.expire <= $2::bigint then $2::bigint + 60000 else r.expire end
  returning points`;
const INSERT = `with s as (
    insert into checkout_sessions (id, business_id, livemode, user_id, status, currency, subtotal, fee, total,
      description, customer_email, ask_shipping, success_url, cancel_url, failure_url, metadata, expires_at, created_at, updated_at)
    values ($1, $2, $3, $4, 'pending', 'USD', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16) returning id)
  insert into session_items (id, session_id, position, name, description, price, quantity, image_url, subtotal)
  select i.id, s.id, i.position, i.name, i.description, i.price, i.quantity, i.image_url, i.subtotal
  from s, jsonb_to_recordset($17::jsonb)
    as i(id text, position int, name text, description text, price bigint, quantity int, image_url text, subtotal bigint)`;

let writesOnlyKey: { key_id: string; mode: string; id: string; fee_bps: number; fee_fixed_cents: number } | undefined;

const app = new Koa();
app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '1mb' }));
app.use(async (ctx) => {
  const hash = hashApiKey(/^Bearer\s+(\S+)$/i.exec(ctx.get('Authorization'))?.[1] ?? '');
  let key = writesOnlyKey;
  if (withRequestWork || !key) {
    key = (await pool.query({ name: 'key', text: KEY_LOOKUP, values: [hash] })).rows[0];
    if (!key) return void (ctx.status = 401);
    if (!withRequestWork) writesOnlyKey = key; // `writes`: looked up once, then never again
  }
  if (withRequestWork) await pool.query({ name: 'count', text: COUNT, values: [`reference:${key.key_id}`, Date.now()] });
  const input = createSessionInput.parse(ctx.request.body);
  const totals = sessionTotals(input.items, { feeBps: key.fee_bps, feeFixedCents: key.fee_fixed_cents });
  const now = new Date();
  const session = {
    id: newSessionId(), businessId: key.id, livemode: key.mode === 'live', userId: key.key_id, status: 'pending', currency: 'USD',
    subtotal: totals.subtotal, fee: totals.fee, total: totals.total, description: input.description,
    customerEmail: input.customer.email, askShipping: input.askShipping, successUrl: input.urls?.success ?? null,
    cancelUrl: input.urls?.cancel ?? null, failureUrl: input.urls?.failure ?? null, metadata: input.metadata ?? {},
    expiresAt: new Date(now.getTime() + 86_400_000), createdAt: now, updatedAt: now, completedAt: null,
  };
  const items = input.items.map((item, position) => ({
    id: newId('item'), sessionId: session.id, position, name: item.name, description: item.description ?? null,
    price: item.price, quantity: item.quantity, imageUrl: item.imageUrl ?? null, subtotal: totals.itemSubtotals[position],
  }));
  const rows = items.map((i) => ({ ...i, image_url: i.imageUrl }));
  await pool.query({
    name: 'insert',
    text: INSERT,
    values: [session.id, session.businessId, session.livemode, session.userId, session.subtotal, session.fee, session.total,
      session.description, session.customerEmail, session.askShipping, session.successUrl, session.cancelUrl, session.failureUrl,
      session.metadata, session.expiresAt, now, JSON.stringify(rows)],
  });
  ctx.status = 201;
  ctx.body = { success: true, data: sessionView(session as unknown as CheckoutSession, items as unknown as SessionItem[], 'https://127.0.0.1') };
});
const server = https.createServer({ cert: readFileSync(process.env.TLS_CERT!), key: readFileSync(process.env.TLS_KEY!) }, app.callback());
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
