import ipaddr from 'ipaddr.js';

// Beside config.ts rather than in the codec server that also uses it: the config checks ADMIN_HOST with it,
// and config.ts importing src/temporal/ (which imports the config) made the one arrow in src/ run back up.

/** `localhost`, 127.0.0.0/8 or ::1, with or without a port: a name only this machine answers to. */
export function isLoopbackHost(host: string | undefined): boolean {
  const raw = (host ?? '').toLowerCase();
  // `[::1]:9464` and `localhost:9464` carry a port; a bare IPv6 address (`::1`) is all colons and no port.
  const name = raw.startsWith('[') ? raw.slice(1, raw.indexOf(']')) : raw.split(':').length === 2 ? raw.split(':')[0] : raw;
  if (name === 'localhost') return true;
  return ipaddr.isValid(name) && ipaddr.process(name).range() === 'loopback';
}
