/**
 * What a retrying client hides. @payments/client retries a 5xx, a 429, a 409 "in progress" and a failed
 * connection, so a test that sees only the final answer passes through all of them. The watch is the
 * fetch the client is given (`createPaymentsClient({ fetch })`, the example shop's `fetch` option): it
 * sits under the retries and notes each such answer, and each request that got no answer at all.
 *
 * It patches nothing global: a client made without it is simply not watched, and one made with it is
 * watched from its first request, whatever the order of the file's hooks.
 */
export interface AnswerWatch {
  fetch: typeof fetch;
  /** What it saw since the last call, one line per answer or failure, in order. */
  take(): string[];
}

/** Worth a line: what the client retries (and a 409 of any kind, which a merchant's code must not meet unawares). */
const hidden = (status: number) => status >= 500 || status === 429 || status === 409;

export function watchAnswers(base: () => typeof fetch = () => globalThis.fetch): AnswerWatch {
  const seen: string[] = [];
  const watched: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : null;
    const label = `${request?.method ?? init?.method ?? 'GET'} ${request?.url ?? String(input)}`;
    try {
      const answer = await base()(input, init);
      if (hidden(answer.status)) seen.push(`${label} answered ${answer.status}`);
      return answer;
    } catch (error) {
      seen.push(`${label} got no answer: ${(error as Error).message}`);
      throw error;
    }
  };
  return { fetch: watched, take: () => seen.splice(0) };
}

/** The lines of `seen` that no pattern of `expected` accounts for (each pattern accounts for one line), then the patterns left unmet. */
export function unexpected(seen: string[], expected: RegExp[]): { unexpected: string[]; missing: string[] } {
  const left = [...expected];
  const extra = seen.filter((line) => {
    const i = left.findIndex((pattern) => pattern.test(line));
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
  return { unexpected: extra, missing: left.map(String) };
}

/**
 * The file's watch: after each test, anything it saw that the test did not declare with `expectHidden`
 * fails that test, and so does a declared one that never came.
 */
export function failOnHiddenAnswers(): AnswerWatch & { expectHidden: (...patterns: RegExp[]) => void } {
  const watch = watchAnswers();
  const expected: RegExp[] = [];
  afterEach(() => {
    expect(unexpected(watch.take(), expected.splice(0))).toEqual({ unexpected: [], missing: [] });
  });
  return { ...watch, expectHidden: (...patterns) => void expected.push(...patterns) };
}
