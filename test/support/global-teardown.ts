import { rmSync } from 'node:fs';
import path from 'node:path';

export default async function globalTeardown(): Promise<void> {
  for (const stop of (globalThis.__PAYMENTS_TEST_STOPS__ ?? []).reverse()) await stop();
  // The servers' data (up to a GB a run) goes with them; the processes' logs stay for a failure's reader.
  const root = process.env.TEST_ROOT;
  if (root) for (const data of ['pg', 'temporal']) rmSync(path.join(root, data), { recursive: true, force: true });
}
