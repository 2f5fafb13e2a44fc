import { pino, type Logger } from 'pino';

/**
 * Structured JSON logs. Secrets are never logged on purpose; the redaction list is the second line of
 * defence for anything that slips into a logged object.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'payments' },
      redact: {
        paths: [
          'req.headers.authorization',
          '*.authorization',
          '*.secret',
          '*.card',
          '*.cardNumber',
          '*.cvc',
          '*.number',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * Marks an info record a person at `npm start`'s terminal wants to see (a payment, a refund, a
 * withdrawal): `log.info({ ...NOTABLE, … }, 'payment of $25.51 succeeded …')`. Warnings and errors
 * are shown without it.
 */
export const NOTABLE = { notable: true } as const;

interface LogRecord {
  level: number;
  time: number;
  msg?: string;
  notable?: boolean;
  err?: { message?: string };
}

const WARN = 40;
const ERROR = 50;

/** The record as one short line for a terminal (`14:03:07  payment of $25.51 succeeded …`), or null when only the JSON log keeps it. */
export function shortLine(record: LogRecord): string | null {
  if (record.level < WARN && !record.notable) return null;
  const time = new Date(record.time).toTimeString().slice(0, 8);
  const label = record.level >= ERROR ? 'error: ' : record.level >= WARN ? 'warning: ' : '';
  const cause = record.err?.message && !record.msg?.includes(record.err.message) ? `: ${record.err.message}` : '';
  return `${time}  ${label}${record.msg ?? ''}${cause}`;
}

/** A pino destination that writes `shortLine` of each record, and nothing for the others. */
export function shortLineStream(out: { write: (text: string) => unknown } = process.stdout): pino.DestinationStream {
  return {
    write(line: string) {
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        out.write(line);
        return;
      }
      const short = shortLine(record);
      if (short) out.write(`${short}\n`);
    },
  };
}
