export default async function globalTeardown(): Promise<void> {
  for (const stop of (globalThis.__PAYMENTS_TEST_STOPS__ ?? []).reverse()) await stop();
}
