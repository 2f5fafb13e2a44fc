import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.js';
import { encryptingDataConverter } from './payload-codec.js';

/**
 * One connection per process; TLS and an API key when pointed at a cluster or Temporal Cloud. Every
 * payload it sends is sealed with the key ring's active key (src/temporal/payload-codec.ts).
 */
export async function connectTemporal(config: Config['temporal'] & { address: string }): Promise<Client> {
  const connection = await Connection.connect({
    address: config.address,
    tls: config.tls || Boolean(config.apiKey),
    apiKey: config.apiKey,
  });
  return new Client({ connection, namespace: config.namespace, dataConverter: encryptingDataConverter(config.encryptionKeys) });
}
