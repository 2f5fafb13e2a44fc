import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';

/** A logger whose records a test reads back, parsed, one object a line as the service writes them. */
export function recordingLog() {
  const records: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      records.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: createLogger('info', sink), records };
}
