/**
 * Every environment variable the service reads: its name, how its value is parsed, its default. Only
 * `loadConfig` (src/config.ts) reads the environment, through `environmentSchema`, and shapes the result
 * into the `Config` the rest of the service is given.
 */
import ipaddr from 'ipaddr.js';
import ms from 'ms';
import { z } from 'zod';

/** A duration such as `90d`, `10m` or `10s`, as the `ms` package reads it, in milliseconds. */
export const durationMs = z.string().transform((value, ctx) => {
  const parsed = ms(value as ms.StringValue);
  if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed <= 0) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration like 90d, 10m or 10s` });
    return z.NEVER;
  }
  return parsed;
});

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** A 256-bit key written as 64 hex digits or as base64 (`openssl rand -base64 32`). */
export const encryptionKey = z.string().transform((value, ctx) => {
  const bytes = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (bytes.length !== 32 || (!/^[0-9a-f]{64}$/i.test(value) && bytes.toString('base64') !== value)) {
    ctx.addIssue({ code: 'custom', message: 'must be 32 bytes as 64 hex digits or base64' });
    return z.NEVER;
  }
  return bytes;
});

/** One key of the payload codec's key ring (src/temporal/payload-codec.ts): its id travels with every payload it seals. */
export interface PayloadKey {
  id: string;
  key: Buffer;
}

/**
 * `keyId:base64key,…` (PAYLOAD_ENCRYPTION_KEYS): the keys that seal Temporal payloads. The first seals new
 * payloads; the others only open old ones, so a key is rotated by putting a new one first.
 */
export const payloadKeyRing = z.string().transform((value, ctx) => {
  const keys: PayloadKey[] = [];
  for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const at = part.indexOf(':');
    const id = part.slice(0, Math.max(at, 0));
    const key = encryptionKey.safeParse(part.slice(at + 1));
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(id)) ctx.addIssue({ code: 'custom', message: 'each key must be keyId:base64key (id of letters, digits, . _ -)' });
    else if (!key.success) ctx.addIssue({ code: 'custom', message: `key "${id}" must be 32 bytes as 64 hex digits or base64` });
    else if (keys.some((k) => k.id === id)) ctx.addIssue({ code: 'custom', message: `key id "${id}" appears twice` });
    else keys.push({ id, key: key.data });
  }
  if (!keys.length) ctx.addIssue({ code: 'custom', message: 'must name at least one keyId:base64key' });
  return keys;
});

/** The key ring of NODE_ENV=test when none is given: fixed, so every process of a test run opens the others' payloads. */
export const TEST_PAYLOAD_ENCRYPTION_KEYS = `test-1:${Buffer.alloc(32, 5).toString('base64')}`;

/** The endpoint-secret key of NODE_ENV=test when none is given: fixed for the same reason (a test's worker process opens the secrets its API sealed). */
export const TEST_WEBHOOK_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

/** Comma-separated durations (`0,1s,2s`): the webhook retry delays, for end-to-end tests only. */
const durationList = z.string().transform((value, ctx) =>
  value.split(',').map((part) => {
    if (part.trim() === '0') return 0;
    const parsed = durationMs.safeParse(part.trim());
    if (!parsed.success) ctx.addIssue({ code: 'custom', message: `"${part}" is not a duration` });
    return parsed.success ? parsed.data : 0;
  }),
);

/** Comma-separated IP addresses and CIDR ranges (`10.0.0.0/8, ::1`): the proxies whose X-Forwarded-* is believed. */
const addressList = z.string().transform((value, ctx) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const valid = part.includes('/') ? ipaddr.isValidCIDR(part) : ipaddr.isValid(part);
      if (!valid) ctx.addIssue({ code: 'custom', message: `"${part}" is not an IP address or CIDR range` });
      return part;
    }),
);

export const environmentSchema = z.object({
  /** Unset: `development` for `npm start` (src/main/dev.ts), `production` for the API and worker entry points. */
  NODE_ENV: z.enum(['development', 'test', 'production']),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: z.url().optional(),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('payments'),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS: flag.default(false),
  /** host:port where a worker exports the Temporal SDK's Prometheus metrics; `off` disables them. */
  TEMPORAL_METRICS_ADDRESS: z.union([z.literal('off'), z.string().regex(/^[^:\s]+:\d{1,5}$/, 'must be host:port or off')]).optional(),
  /** How long a stopping worker lets running activities finish before cancelling them. */
  WORKER_SHUTDOWN_GRACE: durationMs.optional(),
  /**
   * Workflows a worker keeps in memory between tasks; unset, the SDK sizes it from the heap limit. Lower
   * bounds memory (every open checkout session is a workflow asleep on its timer), but below the number
   * of workflows active at once every task replays a history: the benchmark's backlog of 1,300
   * withdrawals slowed to a crawl at 1,000.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).optional(),
  /** A prebuilt workflow bundle for the worker to load (the build's `dist/workflow-bundle.js` by default). */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  /** The Temporal SDK's own log level (its bundler, its state changes); WARN keeps them out of the way. */
  TEMPORAL_SDK_LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']).default('WARN'),
  /** The `temporal` CLI `npm start` runs the dev server with (scripts/provision-temporal.sh finds or builds one). */
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  /** The ORM's own log lines (migrations, statements) on stderr. */
  DEBUG_ORM: flag.default(false),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3443),
  /**
   * How long a starting API, worker or `migrate` waits for PostgreSQL, the migrations and Temporal before
   * it gives up and exits 1; `none`: it waits as long as it takes (docs/configuration.md says why 5m).
   */
  STARTUP_TIMEOUT: z.union([z.literal('none'), durationMs]).default(5 * 60 * 1000),
  /** The operator's port: /metrics, /healthz, /readyz. Never the API's port. */
  ADMIN_HOST: z.string().min(1).default('127.0.0.1'),
  ADMIN_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** The bearer token the ops port asks of everything but /healthz and /readyz; required when ADMIN_HOST is not loopback. */
  ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters (openssl rand -hex 32)').optional(),
  CHECKOUT_BASE_URL: z.url().optional(),
  TLS_CERT_FILE: z.string().optional(),
  TLS_KEY_FILE: z.string().optional(),
  TRUST_PROXY: flag.default(false),
  TRUSTED_PROXIES: addressList.default([]),
  /** Request-body bytes one API process holds at once, all requests together, counted as they arrive (src/http/intake-budget.ts). */
  BODY_BYTES_IN_FLIGHT: z.coerce.number().int().min(1024 * 1024).max(1024 * 1024 * 1024).default(16 * 1024 * 1024),
  /** The share of those bytes one client address may hold. */
  BODY_BYTES_PER_CLIENT: z.coerce.number().int().min(1024 * 1024).max(1024 * 1024 * 1024).default(4 * 1024 * 1024),
  /** Bodies one client address may have open and not yet fully received, at once. */
  BODY_UNFINISHED_PER_CLIENT: z.coerce.number().int().min(1).max(100_000).default(128),
  /** The longest a request may take to send its headers (from the connection's opening), and then the longest its body may go without a byte. */
  BODY_READ_TIMEOUT: durationMs.default(10 * 1000),
  /** The longest a body may take in all, however steadily it arrives. */
  BODY_TOTAL_TIMEOUT: durationMs.default(60 * 1000),
  /** The longest an answer may take to be taken by the client, from its first byte written (a slow reader's bound). */
  SEND_TIMEOUT: durationMs.default(30 * 1000),
  /**
   * Requests a minute from one client address to the public routes (hosted page, pay, cancel) together;
   * 0 turns the limit off. 120: a buyer's checkout is a handful of them, so dozens of buyers behind one
   * address (an office, a carrier's NAT) still pay, while one address can try at most 120 cards a minute.
   */
  PUBLIC_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(120),
  /**
   * 401s a minute one client address gets from one API process before it is answered 429 instead and its
   * keys are no longer looked up (src/modules/businesses/auth-failures.middleware.ts); 0 turns the limit off. 30: a
   * client with a wrong key learns it from the first answer, and a guesser is held to 30 tries a minute.
   */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(30),
  /** API keys each API process keeps in memory (LISTEN/NOTIFY-invalidated, docs/decisions.md); 0: none. */
  API_KEY_CACHE_SIZE: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  /** The longest a cached key is used without reading it again, notification or not. */
  API_KEY_CACHE_TTL: durationMs.default(60 * 1000),
  SESSION_TTL: durationMs.default(24 * 3600 * 1000),
  WITHDRAWAL_PROCESSING_DELAY: durationMs.default(10 * 60 * 1000),
  /** How long a business has to answer a dispute: `evidenceDueBy` is the notice's time plus this. */
  DISPUTE_RESPONSE_WINDOW: durationMs.default(7 * 24 * 3600 * 1000),
  /** How long after a submission the simulated card network decides evidence carrying its test phrases. */
  DISPUTE_REVIEW_PERIOD: durationMs.default(5 * 1000),
  /** How long after a test card's payment the simulated acquirer's dispute notice arrives. */
  DISPUTE_NOTICE_DELAY: durationMs.default(2 * 1000),
  WEBHOOK_ENCRYPTION_KEY: encryptionKey.optional(),
  WEBHOOK_CA_FILE: z.string().min(1).optional(),
  PAYLOAD_ENCRYPTION_KEYS: payloadKeyRing.optional(),
  /** The worker refuses payloads that are not sealed (a deployment whose histories are all sealed). */
  PAYLOAD_REQUIRE_SEALED: flag.default(false),
  /** The bearer token the codec endpoint (ops port, /codec/decode) asks of an operator. */
  CODEC_AUTH_TOKEN: z.string().min(32, 'must be at least 32 characters (openssl rand -hex 32)').optional(),
  /** Origins (the Temporal Web UI's) allowed to call the codec endpoint from a browser; comma-separated. */
  CODEC_CORS_ORIGINS: z.string().optional(),
  ALLOW_PRIVATE_WEBHOOK_URLS: flag.optional(),
  /** Let the card simulator serve live keys. Unset: yes outside production; in production no, live money moves are refused. */
  ALLOW_SIMULATED_LIVE_PAYMENTS: flag.optional(),
  /**
   * The real acquirer live keys' payments, refunds and disputes go to (docs/acquirer.md). Unset or
   * `simulator`: none, and live mode is simulated or refused as ALLOW_SIMULATED_LIVE_PAYMENTS says.
   */
  ACQUIRER: z.enum(['simulator', 'stripe']).optional(),
  /** The Stripe account's secret key (or a restricted key) for ACQUIRER=stripe. */
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/, 'must be a Stripe secret key (sk_live_…, sk_test_…) or restricted key (rk_…)').optional(),
  /** The signing secret of the webhook endpoint registered at Stripe (whsec_…), which the acquirer endpoint checks every event with. */
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_[A-Za-z0-9+/=_-]+$/, 'must be the endpoint\'s signing secret, whsec_…').optional(),
  /** Another address for Stripe's API: stripe-mock's, in tests and on a laptop (http://127.0.0.1:12111). Never in production. */
  STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
  /** The account's publishable key (pk_…), which the hosted page gives Stripe.js to collect the card at Stripe. */
  STRIPE_PUBLISHABLE_KEY: z.string().regex(/^pk_(test|live)_[A-Za-z0-9_]+$/, 'must be a Stripe publishable key, pk_live_… or pk_test_…').optional(),
  /**
   * Where the hosted page loads Stripe.js from. Unset: Stripe's own https://js.stripe.com/v3/. Another address
   * (a stand-in script in tests) is refused in production: a page that loaded the card form from elsewhere
   * would hand customers' cards to whoever serves it.
   */
  STRIPE_JS_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * What pays live withdrawals out: `simulator` lets the card simulator do it (a staging deployment). Unset:
   * the simulator where live payments are simulated, none with a real acquirer or where they are refused.
   */
  WITHDRAWAL_RAIL: z.enum(['simulator']).optional(),
  WEBHOOK_RETRY_DELAYS: durationList.optional(),
  /** An endpoint whose attempts have all failed for this long (from the first failure of the streak) is disabled. */
  WEBHOOK_DISABLE_AFTER: durationMs.default(5 * 24 * 3600 * 1000),
  /** NODE_ENV=test weakens a process (below); an entry point starts under it only with this set. */
  ALLOW_TEST_ENV: flag.default(false),
  /** The fault suite's pause points (src/ops/failpoints.ts), driven over the ops port; NODE_ENV=test only. */
  FAILPOINTS: flag.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `npm start`'s terminal: short lines for people, or the JSON. The production entry points always write JSON. */
  LOG_FORMAT: z.enum(['short', 'json']).default('short'),
  DEV_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  DEV_TEMPORAL_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  DEV_TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
});

/** The environment, parsed: every variable present or given its default. */
export type Environment = z.output<typeof environmentSchema>;
