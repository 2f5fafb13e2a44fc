import { PaymentsConnectionError } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). 0 turns retrying off. */
  maxRetries?: number;
  /** The first backoff, doubled on each retry, with full jitter (default 500 ms). */
  initialDelayMs?: number;
  /** The longest backoff (default 8 s). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once (default 60 s). */
  maxRetryAfterSeconds?: number;
}

/** Sleeps `ms`, or rejects at once when the caller aborts its request. */
const wait = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(timer), reject(signal!.reason));
    const timer = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Seconds, or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * Worth another try with the same request (and so the same `Idempotency-Key`): 429, 5xx, and 409
 * `idempotency_error` "in progress" (the first try is still running; the retry gets its answer replayed).
 */
async function retryable(response: Response): Promise<boolean> {
  if (response.status === 429 || response.status >= 500) return true;
  if (response.status !== 409) return false;
  try {
    const body = (await response.clone().json()) as { error?: { type?: string; message?: string } };
    return body.error?.type === 'idempotency_error' && /in progress/i.test(body.error.message ?? '');
  } catch {
    return false; // not the API's envelope
  }
}

/** OpenSSL's and Node's codes for a certificate that is not trusted or not the host's. */
const CERTIFICATE_CODES = /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_\w+|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * Why the API's certificate was refused, said so that the reader knows what to set, or null for any other
 * failure. Not retried: the same certificate is refused again, and the retries only delayed the error
 * ("fetch failed", its cause in `cause`) by seconds.
 */
function untrustedCertificate(error: unknown): string | null {
  const code = ((error as { cause?: { code?: unknown } })?.cause?.code ?? (error as { code?: unknown })?.code) as unknown;
  if (typeof code !== 'string' || !CERTIFICATE_CODES.test(code)) return null;
  return `the API's certificate is not trusted (${code}): give createPaymentsClient the CA that signs it as its ca option, or name its file in PAYMENTS_CA_FILE`;
}

/**
 * A `fetch` that adds an `Idempotency-Key` to every POST that has none (so a retry cannot do the work
 * twice) and retries network errors, 429, 5xx and a 409 "in progress" with exponential backoff and full
 * jitter, waiting at least what `Retry-After` asks (a refused certificate is not retried). Uses only fetch, Headers, Request and crypto.randomUUID,
 * so it runs on Node ≥ 20, Deno, Bun and edge runtimes.
 */
export function retryingFetch(baseFetch: typeof fetch, options: RetryOptions = {}): (input: Request) => Promise<Response> {
  const { maxRetries = 3, initialDelayMs = 500, maxDelayMs = 8_000, maxRetryAfterSeconds = 60 } = options;
  const backoff = (attempt: number) => Math.random() * Math.min(maxDelayMs, initialDelayMs * 2 ** attempt);

  return async (input: Request) => {
    let request = input;
    if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) {
      const headers = new Headers(request.headers);
      headers.set('Idempotency-Key', globalThis.crypto.randomUUID());
      request = new Request(request, { headers });
    }
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      let response: Response;
      try {
        response = await baseFetch(last ? request : request.clone());
      } catch (error) {
        if (request.signal?.aborted) throw error;
        const refused = untrustedCertificate(error);
        if (refused) throw new PaymentsConnectionError(`${request.method} ${request.url}: ${refused}`, error);
        if (last) throw new PaymentsConnectionError(`${request.method} ${request.url}: no answer after ${attempt + 1} attempt(s): ${String((error as Error)?.message ?? error)}`, error);
        await wait(backoff(attempt), request.signal);
        continue;
      }
      if (last) return response;
      if (!(await retryable(response))) return response;
      const asked = retryAfterMs(response.headers.get('Retry-After'));
      if (asked !== null && asked > maxRetryAfterSeconds * 1000) return response;
      // Frees the connection; not awaited, as a cancel may wait on a reader elsewhere.
      response.body?.cancel().catch(() => undefined);
      await wait(Math.max(asked ?? 0, backoff(attempt)), request.signal);
    }
  };
}
