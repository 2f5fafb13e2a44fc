import path from 'node:path';
import { isLoopbackHost } from './loopback.js';
import { encryptionKey, environmentSchema, payloadKeyRing, TEST_PAYLOAD_ENCRYPTION_KEYS, TEST_WEBHOOK_ENCRYPTION_KEY, type Environment, type PayloadKey } from './environment.js';
import { derivePorts, PortSchemeError, type DerivedPorts } from './port-scheme.js';

// What configuration offers beyond `Config`: the value parsers that key resolution and the admin commands
// use too, and the test key ring, imported from here with the rest (src/environment.ts defines them).
export { durationMs, encryptionKey, payloadKeyRing, TEST_PAYLOAD_ENCRYPTION_KEYS, TEST_WEBHOOK_ENCRYPTION_KEY, type PayloadKey } from './environment.js';

export interface Config {
  env: 'development' | 'test' | 'production';
  dataDir: string;
  databaseUrl?: string;
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    apiKey?: string;
    tls: boolean;
    metricsAddress?: string;
    shutdownGraceMs: number;
    maxCachedWorkflows?: number;
    /** The payload codec's key ring, active key first; outside test, generated under the data dir in development. */
    encryptionKeys?: PayloadKey[];
    /** The worker refuses inputs, signals and updates that are not sealed, instead of passing them through. */
    requireSealed: boolean;
    /** A prebuilt workflow bundle to load instead of bundling at start. */
    workflowBundlePath?: string;
    /** The SDK's own log level. */
    sdkLogLevel: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  };
  /** The operator's port; `token` (ADMIN_TOKEN) guards all of it but the probes, and is required off loopback. */
  admin: { host: string; port: number; token?: string };
  /** STARTUP_TIMEOUT: how long a starting process waits for what it needs (src/main/dependency-wait.ts); null: no bound. */
  startupTimeoutMs: number | null;
  /** The codec endpoint on the ops port, which the Temporal Web UI and CLI decode through. */
  codec: { authToken?: string; corsOrigins: string[] };
  http: {
    host: string;
    port: number;
    tlsCertFile?: string;
    tlsKeyFile?: string;
    trustProxy: boolean;
    /** Addresses and CIDR ranges whose X-Forwarded-For/-Proto are honoured; nobody else's are. */
    trustedProxies: string[];
    /** Per client address, over the public routes together; 0: no limit. */
    publicRateLimitPerMinute: number;
    /** Request bodies: what they may hold at once (process, client address) and how long they may take. */
    intake: { limits: { processBytes: number; clientBytes: number; clientBodies: number }; readTimeoutMs: number; totalTimeoutMs: number };
    /** SEND_TIMEOUT: an answer not taken by its client within it is cut off (src/http/server.ts). */
    sendTimeoutMs: number;
    /** 401s a minute per client address, per API process, before 429s; 0: no limit. */
    authFailuresPerMinute: number;
    /** The in-process API key cache; null: every request reads its key from the database. */
    apiKeyCache: { maxEntries: number; ttlMs: number } | null;
  };
  checkoutBaseUrl?: string;
  sessionTtlMs: number;
  withdrawalProcessingDelayMs: number;
  /** The dispute process's durations (docs/disputes.md). */
  disputes: DisputeTimes;
  webhooks: {
    /** AES-256-GCM key for endpoint secrets at rest; in development it is generated under the data dir. */
    encryptionKey?: Buffer;
    /** Extra CA certificates (PEM) trusted for receivers, added to the system roots. */
    caFile?: string;
    /** Loopback, private, link-local and unique-local receivers: refused in production unless allowed. */
    allowPrivateUrls: boolean;
    /** Test-only override of the spec's retry schedule. */
    retryDelaysMs?: number[];
    /** How long an endpoint may fail without any success before it is disabled (`failing`). */
    disableAfterMs: number;
  };
  /**
   * What serves live keys' payments, refunds and disputes: a real acquirer (`acquirer`, ACQUIRER=stripe);
   * without one the simulator (`simulated`) when ALLOW_SIMULATED_LIVE_PAYMENTS says so, which it does by
   * default outside production; otherwise nothing (`refused`): those requests are refused, no live money
   * move reaches it.
   */
  livePayments: LivePayments;
  /**
   * What pays live withdrawals out, configured apart from the acquirer (Stripe has no rail to the spec's
   * wallet and crypto destinations): the simulator (`simulated`: WITHDRAWAL_RAIL=simulator, or live
   * payments simulated), or nothing (`refused`).
   */
  liveWithdrawals: LiveWithdrawals;
  /** The real acquirer (ACQUIRER=stripe and its keys), or null: none is configured. */
  acquirer: AcquirerConfig | null;
  logLevel: string;
  /** ALLOW_TEST_ENV: the explicit opt-in an entry point needs to start with NODE_ENV=test. */
  allowTestEnv: boolean;
  /** FAILPOINTS: the fault suite's pause points, armed over the ops port (src/ops/failpoints.ts). Test runs only. */
  failpoints: boolean;
  /** What `npm start` prints below its banner (src/dev/terminal-logs.ts); its log files are JSON either way. */
  logFormat: 'short' | 'json';
  /** The ORM's log lines on stderr (DEBUG_ORM). */
  debugOrm: boolean;
  dev: { postgresPort: number; temporalPort: number; temporalUiPort: number; temporalCliPath?: string };
  /** The ports `npm start` took from PORT because they were not set (src/port-scheme.ts); null: none. */
  derivedPorts: DerivedPorts | null;
}

export interface DisputeTimes {
  /** DISPUTE_RESPONSE_WINDOW: from the notice to `evidenceDueBy`. */
  responseWindowMs: number;
  /** DISPUTE_REVIEW_PERIOD: from a submission to the simulated network's decision. */
  reviewPeriodMs: number;
  /** DISPUTE_NOTICE_DELAY: from a test card's payment to the simulated acquirer's notice. */
  noticeDelayMs: number;
}

/** Thrown with one line that names the offending variable, so start-up fails clearly. */
export class ConfigError extends Error {}

/**
 * What NODE_ENV=test changes, and why no deployment may run with it by accident: Temporal histories are
 * sealed with a key published in this repository, webhooks may go to private addresses, and live keys
 * are served by the card simulator. The test suite's own processes set ALLOW_TEST_ENV=true.
 */
export const TEST_ENV_WARNING =
  'NODE_ENV=test: histories are sealed with the published test key, webhooks may reach private addresses and live payments are simulated. Never run a deployment like this.';

/**
 * An entry point (api, worker, npm start, admin) refuses NODE_ENV=test unless ALLOW_TEST_ENV=true says
 * this is a test run; docs/decisions.md, "NODE_ENV=test".
 */
export function assertStartable(config: Pick<Config, 'env' | 'allowTestEnv'>): void {
  if (config.env === 'test' && !config.allowTestEnv) {
    throw new ConfigError(
      'Invalid configuration: NODE_ENV: test is for the test suite only (it seals histories with a published key, allows private webhook URLs and simulates live payments); set NODE_ENV=production, or ALLOW_TEST_ENV=true in a test run',
    );
  }
}

export type LivePayments = 'acquirer' | 'simulated' | 'refused';
export type LiveWithdrawals = 'simulated' | 'refused';

/** Stripe as the live acquirer: its secret key, the webhook endpoint's signing secret, and stripe-mock's address in tests. */
export interface AcquirerConfig {
  name: 'stripe';
  secretKey: string;
  webhookSecret: string;
  apiBase?: string;
  /** The publishable key the hosted page gives Stripe.js, and where it loads Stripe.js from (Stripe's own in production). */
  publishableKey: string;
  stripeJsUrl: string;
}

/** Stripe.js as Stripe serves it: the one address production loads it from (PCI DSS requires it be Stripe's own). */
export const STRIPE_JS_URL = 'https://js.stripe.com/v3/';

/**
 * The configuration from the environment. `defaultEnv` is the NODE_ENV when none is set: the production
 * entry points (api.ts, worker.ts) pass `production`, so a deployment that forgets it fails closed.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  defaultEnv: 'development' | 'production' = 'development',
): Config {
  const { env: c, derived } = withDerivedPorts(parseEnvironment(env, defaultEnv), env);
  assertConsistent(c);
  return {
    env: c.NODE_ENV,
    dataDir: path.resolve(c.DATA_DIR),
    databaseUrl: c.DATABASE_URL,
    temporal: temporalConfig(c),
    codec: codecConfig(c),
    http: httpConfig(c),
    admin: { host: c.ADMIN_HOST, port: c.ADMIN_PORT, token: c.ADMIN_TOKEN },
    startupTimeoutMs: c.STARTUP_TIMEOUT === 'none' ? null : c.STARTUP_TIMEOUT,
    checkoutBaseUrl: c.CHECKOUT_BASE_URL?.replace(/\/+$/, ''),
    sessionTtlMs: c.SESSION_TTL,
    withdrawalProcessingDelayMs: c.WITHDRAWAL_PROCESSING_DELAY,
    disputes: { responseWindowMs: c.DISPUTE_RESPONSE_WINDOW, reviewPeriodMs: c.DISPUTE_REVIEW_PERIOD, noticeDelayMs: c.DISPUTE_NOTICE_DELAY },
    webhooks: {
      encryptionKey: c.WEBHOOK_ENCRYPTION_KEY ?? (c.NODE_ENV === 'test' ? encryptionKey.parse(TEST_WEBHOOK_ENCRYPTION_KEY) : undefined),
      caFile: c.WEBHOOK_CA_FILE,
      allowPrivateUrls: c.ALLOW_PRIVATE_WEBHOOK_URLS ?? c.NODE_ENV !== 'production',
      retryDelaysMs: c.WEBHOOK_RETRY_DELAYS,
      disableAfterMs: c.WEBHOOK_DISABLE_AFTER,
    },
    ...liveModeConfig(c),
    logLevel: c.LOG_LEVEL,
    allowTestEnv: c.ALLOW_TEST_ENV,
    failpoints: c.FAILPOINTS,
    logFormat: c.LOG_FORMAT,
    debugOrm: c.DEBUG_ORM,
    dev: { postgresPort: c.DEV_POSTGRES_PORT, temporalPort: c.DEV_TEMPORAL_PORT, temporalUiPort: c.DEV_TEMPORAL_UI_PORT, temporalCliPath: c.TEMPORAL_CLI_PATH },
    derivedPorts: derived,
  };
}

/** `npm start`'s unset ports, following a PORT that is not the default (src/port-scheme.ts); an empty variable counts as unset. */
function withDerivedPorts(c: Environment, env: NodeJS.ProcessEnv): ReturnType<typeof derivePorts> {
  try {
    return derivePorts(c, (name) => env[name] !== undefined && env[name] !== '');
  } catch (err) {
    throw err instanceof PortSchemeError ? new ConfigError(err.message) : err;
  }
}

/** The variables that are set (an empty one counts as unset), parsed; the first problem names its variable. */
function parseEnvironment(env: NodeJS.ProcessEnv, defaultEnv: 'development' | 'production'): Environment {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = environmentSchema.safeParse({ NODE_ENV: defaultEnv, ...present });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Variables valid alone but not together. */
function assertConsistent(c: Environment): void {
  if (c.WEBHOOK_RETRY_DELAYS && c.NODE_ENV !== 'test') {
    throw new ConfigError('Invalid configuration: WEBHOOK_RETRY_DELAYS is for tests only; the spec fixes the schedule');
  }
  // Anyone who reaches a process's ops port could pause its payments: never outside the fault suite.
  if (c.FAILPOINTS && c.NODE_ENV !== 'test') {
    throw new ConfigError('Invalid configuration: FAILPOINTS is for the fault suite only (it lets the admin port pause payments); unset it');
  }
  if (c.TRUST_PROXY && c.TRUSTED_PROXIES.length === 0) {
    throw new ConfigError(
      'Invalid configuration: TRUST_PROXY=true needs TRUSTED_PROXIES, the addresses of the proxies whose X-Forwarded-* headers are believed',
    );
  }
  // /metrics (and, in the fault suite, /failpoints) would answer anyone who reaches the port.
  if (!isLoopbackHost(c.ADMIN_HOST) && !c.ADMIN_TOKEN) {
    throw new ConfigError(
      `Invalid configuration: ADMIN_TOKEN is required when ADMIN_HOST (${c.ADMIN_HOST}) is not a loopback address (openssl rand -hex 32), or set ADMIN_HOST=127.0.0.1`,
    );
  }
  if (Boolean(c.TLS_CERT_FILE) !== Boolean(c.TLS_KEY_FILE)) {
    throw new ConfigError('Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  assertAcquirer(c);
}

/** ACQUIRER=stripe needs its two secrets; Stripe's settings without it would be silently ignored, so they are refused. */
function assertAcquirer(c: Environment): void {
  if (c.ACQUIRER === 'stripe') {
    for (const name of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_PUBLISHABLE_KEY'] as const) {
      if (!c[name]) throw new ConfigError(`Invalid configuration: ACQUIRER=stripe needs ${name} (docs/acquirer.md)`);
    }
    // A publishable key of the other mode than the secret key would make every live confirmation in the
    // browser fail at Stripe, each session then waiting on the customer until its expiry.
    const modeOf = (key: string) => (/^(sk|rk|pk)_live_/.test(key) ? 'live' : /^(sk|rk|pk)_test_/.test(key) ? 'test' : null);
    const [secretMode, publishableMode] = [modeOf(c.STRIPE_SECRET_KEY!), modeOf(c.STRIPE_PUBLISHABLE_KEY!)];
    if (secretMode && publishableMode && secretMode !== publishableMode) {
      throw new ConfigError(`Invalid configuration: STRIPE_PUBLISHABLE_KEY is a ${publishableMode} key and STRIPE_SECRET_KEY a ${secretMode} one; both must be of one Stripe mode`);
    }
    if (c.ALLOW_SIMULATED_LIVE_PAYMENTS) {
      throw new ConfigError('Invalid configuration: ALLOW_SIMULATED_LIVE_PAYMENTS=true and ACQUIRER=stripe both name what serves live payments; unset one');
    }
  } else {
    const stray = (['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_API_BASE', 'STRIPE_PUBLISHABLE_KEY', 'STRIPE_JS_URL'] as const).find((name) => c[name]);
    if (stray) throw new ConfigError(`Invalid configuration: ${stray} is set but ACQUIRER is not stripe; set ACQUIRER=stripe or unset it`);
  }
  // stripe-mock answers with fixtures and moves no money: a production deployment pointed at it would take orders it never charged.
  if (c.STRIPE_API_BASE && c.NODE_ENV === 'production') {
    throw new ConfigError('Invalid configuration: STRIPE_API_BASE is for stripe-mock in tests and development; production talks to Stripe itself');
  }
  // The card form runs in the script's frames: served from anywhere but Stripe, it would take the cards.
  if (c.STRIPE_JS_URL && c.STRIPE_JS_URL !== STRIPE_JS_URL && c.NODE_ENV === 'production') {
    throw new ConfigError('Invalid configuration: STRIPE_JS_URL is for a stand-in of Stripe.js in tests and development; production loads Stripe.js from Stripe itself');
  }
}

/** Who serves live keys: the acquirer when one is configured, else the simulator or nobody; and who pays their withdrawals. */
function liveModeConfig(c: Environment): Pick<Config, 'livePayments' | 'liveWithdrawals' | 'acquirer'> {
  const simulated = c.ALLOW_SIMULATED_LIVE_PAYMENTS ?? c.NODE_ENV !== 'production';
  const acquirer: AcquirerConfig | null =
    c.ACQUIRER === 'stripe' ? {
          name: 'stripe',
          secretKey: c.STRIPE_SECRET_KEY!,
          webhookSecret: c.STRIPE_WEBHOOK_SECRET!,
          apiBase: c.STRIPE_API_BASE,
          publishableKey: c.STRIPE_PUBLISHABLE_KEY!,
          stripeJsUrl: c.STRIPE_JS_URL ?? STRIPE_JS_URL,
        } : null;
  return {
    acquirer,
    livePayments: acquirer ? 'acquirer' : simulated ? 'simulated' : 'refused',
    liveWithdrawals: c.WITHDRAWAL_RAIL === 'simulator' || (!acquirer && simulated) ? 'simulated' : 'refused',
  };
}

function temporalConfig(c: Environment): Config['temporal'] {
  return {
    address: c.TEMPORAL_ADDRESS,
    namespace: c.TEMPORAL_NAMESPACE,
    taskQueue: c.TEMPORAL_TASK_QUEUE,
    apiKey: c.TEMPORAL_API_KEY,
    tls: c.TEMPORAL_TLS,
    // One worker per host by default; tests run several per machine, so they opt in with a free port.
    metricsAddress:
      c.TEMPORAL_METRICS_ADDRESS === 'off' ? undefined : (c.TEMPORAL_METRICS_ADDRESS ?? (c.NODE_ENV === 'test' ? undefined : '127.0.0.1:9465')),
    // Tests stop workers constantly; there an activity is cancelled at once, as the SDK does by default.
    shutdownGraceMs: c.WORKER_SHUTDOWN_GRACE ?? (c.NODE_ENV === 'test' ? 0 : 30_000),
    // Bounded: the SDK's default grows with the heap limit (2,000+ on a 24 GB host). With the shared V8
    // context a cached workflow cost about 0.25 MB under the bench (peak 748 MB at 100, 843 MB at 500), so
    // 500 costs ~120 MB and covers the workflows active at once in the bench; beyond it a task replays
    // its (short) history. See docs/benchmark.md, Worker memory.
    maxCachedWorkflows: c.WORKER_MAX_CACHED_WORKFLOWS ?? 250,
    encryptionKeys: c.PAYLOAD_ENCRYPTION_KEYS ?? (c.NODE_ENV === 'test' ? payloadKeyRing.parse(TEST_PAYLOAD_ENCRYPTION_KEYS) : undefined),
    requireSealed: c.PAYLOAD_REQUIRE_SEALED,
    workflowBundlePath: c.WORKFLOW_BUNDLE_PATH,
    sdkLogLevel: c.TEMPORAL_SDK_LOG_LEVEL,
  };
}

function codecConfig(c: Environment): Config['codec'] {
  return {
    authToken: c.CODEC_AUTH_TOKEN,
    // `npm start`'s UI, at localhost or 127.0.0.1, unless told otherwise.
    corsOrigins: c.CODEC_CORS_ORIGINS
      ? c.CODEC_CORS_ORIGINS.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean)
      : c.NODE_ENV === 'development'
        ? [`http://localhost:${c.DEV_TEMPORAL_UI_PORT}`, `http://127.0.0.1:${c.DEV_TEMPORAL_UI_PORT}`]
        : [],
  };
}

function httpConfig(c: Environment): Config['http'] {
  return {
    host: c.HOST,
    port: c.PORT,
    tlsCertFile: c.TLS_CERT_FILE,
    tlsKeyFile: c.TLS_KEY_FILE,
    trustProxy: c.TRUST_PROXY,
    trustedProxies: c.TRUSTED_PROXIES,
    publicRateLimitPerMinute: c.PUBLIC_RATE_LIMIT_PER_MINUTE,
    intake: {
      limits: { processBytes: c.BODY_BYTES_IN_FLIGHT, clientBytes: Math.min(c.BODY_BYTES_PER_CLIENT, c.BODY_BYTES_IN_FLIGHT), clientBodies: c.BODY_UNFINISHED_PER_CLIENT },
      readTimeoutMs: c.BODY_READ_TIMEOUT,
      // A total below the progress deadline would make the progress deadline meaningless: the larger wins.
      totalTimeoutMs: Math.max(c.BODY_TOTAL_TIMEOUT, c.BODY_READ_TIMEOUT),
    },
    sendTimeoutMs: c.SEND_TIMEOUT,
    authFailuresPerMinute: c.AUTH_FAILURES_PER_MINUTE,
    apiKeyCache: c.API_KEY_CACHE_SIZE > 0 ? { maxEntries: c.API_KEY_CACHE_SIZE, ttlMs: c.API_KEY_CACHE_TTL } : null,
  };
}
