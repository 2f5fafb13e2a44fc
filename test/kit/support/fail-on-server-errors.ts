/**
 * Every answer the merchant kit's clients get in this file, watched: a 5xx fails the file even when the
 * client's retries turned it into a success, which is exactly what a retrying client would otherwise hide.
 * The clients take `globalThis.fetch` when they are made, so call this before any is made (first in the
 * file, before the hook that makes them); it is put back after the file.
 */
export function failOnServerErrors(): void {
  const seen: string[] = [];
  let original: typeof fetch | undefined;
  beforeAll(() => {
    const real = (original = globalThis.fetch);
    globalThis.fetch = async (input, init) => {
      const answer = await real(input, init);
      if (answer.status >= 500) {
        const request = input instanceof Request ? input : null;
        seen.push(`${request?.method ?? init?.method ?? 'GET'} ${request?.url ?? String(input)} answered ${answer.status}`);
      }
      return answer;
    };
  });
  afterEach(() => {
    const found = seen.splice(0);
    expect(found).toEqual([]);
  });
  afterAll(() => {
    if (original) globalThis.fetch = original;
  });
}
