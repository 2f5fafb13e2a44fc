/**
 * Histories to and from the JSON that `temporal workflow show --output json` and the SDK's
 * `historyToJSON` / `historyFromJSON` (@temporalio/common/lib/proto-utils) write and read.
 *
 * The SDK's own functions are used when they work. In this install they do not: npm gave
 * @temporalio/common, @temporalio/proto and @temporalio/worker each a copy of protobufjs 8 (the root
 * holds protobufjs 7 for @grpc/proto-loader), and protobufjs checks `instanceof Type` against its own
 * copy, so proto-utils throws "type must be a Type". The fallback does exactly what proto-utils does, with the protojson of the
 * copy that @temporalio/proto's types were built with.
 */
import { createRequire } from 'node:module';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';

const require = createRequire(import.meta.url);
const protoEntry = require.resolve('@temporalio/proto');
const fromProto = createRequire(protoEntry);

function sameCopy() {
  const proto = fromProto(protoEntry);
  const { toJson, fromJson } = fromProto('protobufjs/ext/protojson');
  const { patchProtobufRoot } = fromProto('@temporalio/proto/lib/patch-protobuf-root');
  const historyType = patchProtobufRoot(proto).lookupType('temporal.api.history.v1.History');
  return { proto, toJson, fromJson, historyType };
}

const isCopyMismatch = (err: unknown) => err instanceof TypeError && /must be a Type/.test(err.message);

/** The history as indented proto JSON (the SDK's `historyToJSON`). */
export function historyJSON(history: History): string {
  try {
    return historyToJSON(history);
  } catch (err) {
    if (!isCopyMismatch(err)) throw err;
    const { proto, toJson, historyType } = sameCopy();
    return JSON.stringify(toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)), null, 2);
  }
}

/** A History from proto JSON (the SDK's `historyFromJSON`; this project's files need none of its old-format fixes). */
export function parseHistoryJSON(json: unknown): History {
  try {
    return historyFromJSON(json);
  } catch (err) {
    if (!isCopyMismatch(err)) throw err;
    const { fromJson, historyType } = sameCopy();
    return fromJson(historyType, json, { ignoreUnknownFields: true }) as History;
  }
}
