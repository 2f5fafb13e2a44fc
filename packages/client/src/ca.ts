/**
 * The CA that signs the API's certificate, when it is not one the runtime trusts already: `npm start`'s
 * development CA (`.data/tls/ca.pem`), or a company's private one. NODE_EXTRA_CA_CERTS did this only
 * from the shell: Node reads it once, at start, so `node --env-file=.data/demo.env app.js` (where it
 * arrives too late) failed on the certificate. The client therefore takes the CA itself, as its `ca`
 * option or from the file PAYMENTS_CA_FILE names, the variable `.data/demo.env` sets beside the URL and
 * key, and gives it to the connections it makes, and to no one else's: the process's own trust is left as
 * it was.
 *
 * Nothing here imports a Node built-in: Node's are reached through `process.getBuiltinModule` and undici
 * (Node's fetch engine) is imported on the first request that needs it, so the client still loads on
 * runtimes that have neither, as long as no CA is asked for.
 */

/** A CA certificate (or several), PEM: a string, or a Buffer as `readFileSync` gives it. */
export type CaCertificate = string | Uint8Array;

interface NodeProcess {
  env?: Record<string, string | undefined>;
  getBuiltinModule?: (id: string) => unknown;
}
const nodeProcess = (): NodeProcess | undefined => (globalThis as { process?: NodeProcess }).process;
const builtin = <T>(id: string): T | undefined => nodeProcess()?.getBuiltinModule?.(id) as T | undefined;

const isPem = (ca: CaCertificate) => (typeof ca === 'string' ? ca : new TextDecoder().decode(ca)).includes('-----BEGIN CERTIFICATE-----');

/**
 * The CA to trust: the `ca` option, else the file PAYMENTS_CA_FILE names, else null (the runtime's own
 * CAs only). The file is read here, when the client is made, so that a wrong path is told at once and by
 * the variable's name, not as a certificate error on the first request after its retries.
 */
export function caToTrust(ca: CaCertificate | undefined): CaCertificate | null {
  if (ca !== undefined) {
    // The likeliest slip is the file's name where its contents belong (`ca: process.env.PAYMENTS_CA_FILE`).
    if (!isPem(ca)) throw new TypeError('createPaymentsClient: ca must be the PEM text of a CA certificate (-----BEGIN CERTIFICATE-----…), such as readFileSync(file); a file name alone belongs in PAYMENTS_CA_FILE');
    return ca;
  }
  const file = nodeProcess()?.env?.PAYMENTS_CA_FILE;
  if (!file) return null;
  const fs = builtin<{ readFileSync(path: string): Uint8Array }>('node:fs');
  if (!fs) throw new Error(`createPaymentsClient: PAYMENTS_CA_FILE is set (${file}), but this runtime cannot read it (Node ≥ 20.18 can): give the CA's text as the ca option`);
  let pem: Uint8Array;
  try {
    pem = fs.readFileSync(file);
  } catch (error) {
    throw new Error(`createPaymentsClient: cannot read the CA file PAYMENTS_CA_FILE names, ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (!isPem(pem)) throw new Error(`createPaymentsClient: the file PAYMENTS_CA_FILE names, ${file}, holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return pem;
}

interface TlsModule {
  rootCertificates: readonly string[];
  getCACertificates?: (type: 'default') => string[];
}

/**
 * A fetch whose HTTPS connections trust `ca` besides the runtime's default CAs (as NODE_EXTRA_CA_CERTS
 * adds to them, so an API on a public certificate still works with a stale PAYMENTS_CA_FILE), through an
 * undici Agent given to `baseFetch` as its `dispatcher`: Node's fetch takes one, and a fetch of the
 * caller's own (the `fetch` option) is handed it in `init` to pass on. Not NODE_TLS_REJECT_UNAUTHORIZED,
 * which would trust anyone.
 */
export function fetchTrusting(ca: CaCertificate, baseFetch: typeof fetch): typeof fetch {
  let dispatcher: Promise<unknown> | undefined;
  const agent = async () => {
    const tls = builtin<TlsModule>('node:tls');
    if (!tls) throw new Error('@payments/client: the ca option (or PAYMENTS_CA_FILE) needs Node ≥ 20.18; elsewhere, give a fetch that trusts the CA');
    const defaults = tls.getCACertificates?.('default') ?? [...tls.rootCertificates];
    const { Agent } = await import('undici');
    return new Agent({ connect: { ca: [...defaults, typeof ca === 'string' ? ca : new TextDecoder().decode(ca)] } });
  };
  return async (input, init) => {
    dispatcher ??= agent();
    return baseFetch(input, { ...init, dispatcher: await dispatcher } as RequestInit);
  };
}
