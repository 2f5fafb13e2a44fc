import path from 'node:path';

/**
 * The banner: where everything is, the demo key, what serves live keys (the acquirer configured for live
 * mode, or the simulator, or nobody: `livePaymentsNotice`), and how to see this again (`npm run admin --
 * banner` prints what `npm start` left in the data directory).
 */
export function bannerText(s: {
  apiOrigin: string;
  uiUrl: string;
  admin: string;
  /** The dev server's gRPC address, when `npm start` runs it (null: TEMPORAL_ADDRESS's Temporal, named in uiUrl). */
  temporalAddress: string | null;
  /** host:port of the worker's SDK metrics, which the ops port's /metrics also serves; null: off. */
  sdkMetrics: string | null;
  /** The PORT the unset ports followed (src/port-scheme.ts); null: none did. */
  portsFrom: number | null;
  testKey: string;
  livePayments: string;
  caFile: string | null;
  pgWhere: string;
  dataDir: string;
  logDir: string;
}): string {
  const demoEnv = path.relative(process.cwd(), path.join(s.dataDir, 'demo.env'));
  const lines = [
    '',
    '  Payments service is running',
    // The link a terminal makes clickable is one that answers: `/api` alone is no operation (a JSON 404).
    `  API reference    ${s.apiOrigin}/docs   (the API is under /api: the curl line below)`,
    `  Demo test key    ${s.testKey}`,
    `  For your shell   . ${demoEnv}   (PAYMENTS_API_URL, PAYMENTS_API_KEY, PAYMENTS_CA_FILE, PAYMENTS_BUSINESS_ID)`,
    s.caFile ? `  CA file to trust ${s.caFile}` : '',
    `  Temporal UI      ${s.uiUrl}${s.temporalAddress ? `   (the dev server at ${s.temporalAddress})` : ''}`,
    `  Metrics, health  ${s.admin}/metrics  /healthz  /readyz${s.sdkMetrics ? `   (with the worker's SDK metrics, from ${s.sdkMetrics})` : ''}`,
    `  Codec endpoint   ${s.admin}/codec (the UI decrypts histories through it)`,
    `  Live payments    ${s.livePayments}`,
    `  PostgreSQL       ${s.pgWhere}`,
    `  Data, logs       ${s.dataDir}, ${s.logDir} (api.log, worker.log: the full JSON logs)`,
    // Every port is on a line above; this says why they are not the defaults, and how to move one.
    s.portsFrom !== null ? `  Ports            each one not set follows PORT=${s.portsFrom}: PORT+1 to PORT+5 (docs/configuration.md)` : '',
    '',
    `  curl --cacert ${s.caFile ?? '<your CA>'} -H "Authorization: Bearer ${s.testKey}" ${s.apiOrigin}/api/checkout/sessions`,
    '',
    '  Below: a line for each payment, refund, withdrawal, dispute, webhook failure, warning and error.',
    '  npm run admin -- banner prints this again. Press Ctrl-C to stop.',
    '',
  ];
  return `${lines.filter((l, i) => l !== '' || i === 0 || lines[i - 1] !== '').join('\n')}\n`;
}
