import type { Logger } from 'pino';

export interface ShutdownStep {
  /** Shown in the log line of the step. */
  name: string;
  run: () => Promise<unknown> | unknown;
}

/**
 * SIGTERM (or SIGINT) runs the steps in order, once: typically stop being ready, stop taking
 * connections and finish in-flight requests (or let the worker drain its activities), then close the
 * pools. A step that fails is logged and the next still runs. If the whole sequence takes longer than
 * `timeoutMs`, or a second signal comes, the process exits at once with 1. Returns the same sequence
 * for callers that stop for another reason (a fatal error).
 */
export function gracefulShutdown(opts: {
  log: Logger;
  steps: ShutdownStep[];
  timeoutMs?: number;
  signals?: NodeJS.Signals[];
  exit?: (code: number) => void;
}): (code?: number) => Promise<void> {
  const { log, steps, timeoutMs = 45_000, signals = ['SIGTERM', 'SIGINT'], exit = (code) => process.exit(code) } = opts;
  let running: Promise<void> | null = null;

  const shutdown = (code = 0): Promise<void> => {
    running ??= (async () => {
      const timer = setTimeout(() => {
        log.error({ timeoutMs }, 'shutdown took too long; exiting');
        exit(1);
      }, timeoutMs);
      timer.unref();
      let failed = false;
      for (const step of steps) {
        try {
          await step.run();
          log.info({ step: step.name }, 'shutdown step done');
        } catch (err) {
          failed = true;
          log.error({ err, step: step.name }, 'shutdown step failed');
        }
      }
      clearTimeout(timer);
      log.info('shutdown complete');
      exit(failed && code === 0 ? 1 : code);
    })();
    return running;
  };

  for (const signal of signals) {
    process.on(signal, () => {
      if (running) {
        log.warn({ signal }, 'second signal during shutdown; exiting now');
        exit(1);
        return;
      }
      log.info({ signal }, 'shutting down');
      void shutdown(0);
    });
  }
  return shutdown;
}
