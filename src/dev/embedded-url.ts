/**
 * The embedded server's address, apart from the module that starts it, so the API and worker entry
 * points, which only connect, load nothing that starts servers.
 */
const USER = 'postgres';
const PASSWORD = 'postgres';

export function embeddedUrl(port: number, database = 'payments'): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}
