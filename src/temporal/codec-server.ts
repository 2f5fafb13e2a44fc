import { timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { isLoopbackHost } from '../loopback.js';

/**
 * Temporal's remote codec protocol, which the Web UI (`--ui-codec-endpoint`, or its Data Encoder
 * setting) and the CLI (`--codec-endpoint`, `--codec-auth`) speak: `POST <endpoint>/decode` (and
 * `/encode`) with `{"payloads": [{"metadata": {"encoding": "<base64>"}, "data": "<base64>"}]}`, answered
 * with the same shape. Served on the ops port under `/codec`; every call but the CORS preflight needs
 * the operator's bearer token (CODEC_AUTH_TOKEN), except under `npm start` when none is set.
 */
export interface CodecEndpoint {
  codec: PayloadCodec;
  /** `Authorization: Bearer <token>` every caller must send; unset, only `openWithoutToken` lets anyone in. */
  authToken?: string;
  /** Development only (`npm start` on loopback): without a token, the endpoint is open. */
  openWithoutToken: boolean;
  /** Browser origins (the Web UI's) that may call it. */
  corsOrigins: string[];
}

export const CODEC_PATH = '/codec';
const MAX_BODY_BYTES = 8 * 1024 * 1024;

const wirePayloads = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), z.string()).nullish(), data: z.string().nullish() })),
});
type WirePayload = z.infer<typeof wirePayloads>['payloads'][number];

const fromWire = (p: WirePayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});
const toWire = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

/**
 * Without a token the endpoint is open only where `openWithoutToken` says (development, on a loopback
 * listener), and then only to requests addressed to a loopback name: a web page whose DNS name was
 * rebound to 127.0.0.1 sends its own name as Host, so it is refused.
 */
export function authorised(endpoint: CodecEndpoint, header: string | undefined, host?: string): boolean {
  if (!endpoint.authToken) return endpoint.openWithoutToken && isLoopbackHost(host);
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(endpoint.authToken);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Answers one request under `/codec`. */
export function serveCodec(req: http.IncomingMessage, res: http.ServerResponse, endpoint: CodecEndpoint): void {
  const origin = req.headers.origin;
  const cors: Record<string, string> = {};
  if (origin && endpoint.corsOrigins.includes(origin)) {
    Object.assign(cors, {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Credentials': 'true', // the UI's "include cross-origin credentials" setting
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers': 'content-type, x-namespace, authorization',
      'Access-Control-Max-Age': '600',
      Vary: 'Origin',
    });
  }
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...cors, ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const path = (req.url ?? '/').split('?')[0];
  const action = path === `${CODEC_PATH}/decode` ? 'decode' : path === `${CODEC_PATH}/encode` ? 'encode' : null;
  // A preflight carries no credentials: it is answered for any codec path, the real call is checked.
  if (req.method === 'OPTIONS') return send(204, undefined);
  if (!action) return send(404, { error: 'not found' });
  if (req.method !== 'POST') return send(405, { error: 'method not allowed' }, { Allow: 'POST, OPTIONS' });
  if (!authorised(endpoint, req.headers.authorization, req.headers.host)) {
    return send(401, { error: 'the codec endpoint needs the operator token: Authorization: Bearer <CODEC_AUTH_TOKEN>' }, { 'WWW-Authenticate': 'Bearer' });
  }
  void readBody(req).then(
    async (raw) => {
      if (raw === null) return send(413, { error: `body over ${MAX_BODY_BYTES} bytes` });
      let parsed;
      try {
        parsed = wirePayloads.safeParse(JSON.parse(raw.toString('utf8')));
      } catch {
        return send(400, { error: 'body is not JSON' });
      }
      if (!parsed.success) return send(400, { error: 'body must be {"payloads": [{"metadata": {...}, "data": "<base64>"}]}' });
      try {
        const payloads = parsed.data.payloads.map(fromWire);
        const out = action === 'decode' ? await endpoint.codec.decode(payloads) : await endpoint.codec.encode(payloads);
        send(200, { payloads: out.map(toWire) });
      } catch (err) {
        send(400, { error: `cannot ${action}: ${(err as Error).message}` });
      }
    },
    () => send(400, { error: 'body could not be read' }),
  );
}

function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
