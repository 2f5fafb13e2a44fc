// The failure converter of this service's Temporal clients and workers (src/temporal/payload-codec.ts):
// a failure's message and stack trace are moved into a payload, which the encrypting codec seals. Plain
// CommonJS because the SDK require()s it by path, in the main thread and inside the workflow bundle.
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
