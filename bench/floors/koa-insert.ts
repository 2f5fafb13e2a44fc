/** F2: Koa plus one prepared `INSERT … RETURNING` per request on a pool of 10. Own process. */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query('create table if not exists bench_floor (id bigserial primary key, body text not null, created_at timestamptz not null default now())');
const app = new Koa();
app.use(async (ctx) => {
  const { rows } = await pool.query({ name: 'floor-insert', text: 'insert into bench_floor (body) values ($1) returning id', values: ['x'] });
  ctx.status = 201;
  ctx.body = { success: true, id: rows[0].id };
});
const server = https.createServer({ cert: readFileSync(process.env.TLS_CERT!), key: readFileSync(process.env.TLS_KEY!) }, app.callback());
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
