import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import type { Config, PayloadKey } from '../config.js';
import { encryptingDataConverter } from './payload-codec.js';

/**
 * One connection per process; TLS and an API key when pointed at a cluster or Temporal Cloud. Every
 * payload it sends is sealed with the key ring's active key (src/temporal/payload-codec.ts). A connection
 * that cannot reach the server within the timeout is closed before the error is thrown: a starting
 * process tries again and again (src/main/dependency-wait.ts), and the SDK's own `connect` would leave
 * each failed try's channel open, retrying in the background.
 */
export async function connectTemporal(config: Config['temporal'] & { address: string; connectTimeoutMs?: number }): Promise<Client> {
  const connection = Connection.lazy({
    address: config.address,
    tls: config.tls || Boolean(config.apiKey),
    apiKey: config.apiKey,
    ...(config.connectTimeoutMs ? { connectTimeout: config.connectTimeoutMs } : {}),
  });
  try {
    await connection.ensureConnected();
  } catch (err) {
    await connection.close().catch(() => undefined);
    throw err;
  }
  return new Client({ connection, namespace: config.namespace, dataConverter: encryptingDataConverter(config.encryptionKeys) });
}

/**
 * A client over a worker's own NativeConnection whose every start asks for eager execution: the server
 * answers the start with the run's first workflow task, which goes straight to this process's worker
 * instead of waiting for its next poll (one round trip less before the first step). The outbox relay of
 * a worker process starts workflows through it; a start the worker cannot take at once runs as usual.
 */
export function eagerStartClient(connection: ConnectionLike, config: { namespace: string; encryptionKeys: PayloadKey[] }): Client {
  return new Client({
    connection,
    namespace: config.namespace,
    dataConverter: encryptingDataConverter(config.encryptionKeys),
    // A delayed start (`startDelay`) has no first task to hand over now, so eager execution is not asked for it.
    interceptors: { workflow: [{ start: (input, next) => next({ ...input, options: { ...input.options, requestEagerStart: input.options.startDelay === undefined } }) }] },
  });
}
