/** F1: a bare Koa HTTPS endpoint answering 201. Run as its own process by the benchmark. */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import Koa from 'koa';

const app = new Koa();
app.use((ctx) => {
  ctx.status = 201;
  ctx.body = { success: true };
});
const server = https.createServer({ cert: readFileSync(process.env.TLS_CERT!), key: readFileSync(process.env.TLS_KEY!) }, app.callback());
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
