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
