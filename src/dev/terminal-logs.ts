import path from 'node:path';
import { pino, type Logger } from 'pino';
import { createLogger, shortLineStream } from '../log.js';

/**
 * `npm start`'s loggers, one for the API and one for the worker: every record as JSON in
 * `<logDir>/api.log` and `worker.log`, and on the terminal one short line per warning, error and
 * notable record (src/log.ts), so the banner and its test key stay in sight. `json` puts the full JSON
 * on the terminal instead, as the production entry points always write it.
 */
export function terminalLoggers(level: string, logDir: string, format: 'short' | 'json'): { api: Logger; worker: Logger } {
  const terminal = format === 'json' ? pino.destination({ dest: 1, sync: true }) : shortLineStream();
  const loggerTo = (file: string) =>
    createLogger(
      level,
      pino.multistream([
        // Written as it comes: a Ctrl-C exits the process without waiting for a buffer to drain.
        { level: level as pino.Level, stream: pino.destination({ dest: path.join(logDir, file), append: true, mkdir: true, sync: true }) },
        { level: level as pino.Level, stream: terminal },
      ]),
    );
  return { api: loggerTo('api.log'), worker: loggerTo('worker.log') };
}
