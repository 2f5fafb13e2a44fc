import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import selfsigned from 'selfsigned';

export interface TlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/**
 * Development TLS: a local CA and a `localhost` certificate it signs, made on first start under the data
 * directory. Clients trust `ca.pem` (curl --cacert). Production passes TLS_CERT_FILE / TLS_KEY_FILE.
 */
export async function ensureDevCertificate(dataDir: string, hostnames: string[] = ['localhost']): Promise<TlsFiles> {
  const dir = path.join(dataDir, 'tls');
  const files = { caFile: path.join(dir, 'ca.pem'), certFile: path.join(dir, 'cert.pem'), keyFile: path.join(dir, 'key.pem') };
  if (existsSync(files.caFile) && existsSync(files.certFile) && existsSync(files.keyFile)) return files;
  mkdirSync(dir, { recursive: true });
  const notAfterDate = new Date(Date.now() + 825 * 24 * 3600 * 1000);
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'Payments Service Development CA' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await selfsigned.generate([{ name: 'commonName', value: hostnames[0] }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        // A name given as an address is an IP entry: TLS matches an address in a URL against those only.
        altNames: [...hostnames.map((value) => (isIP(value) ? { type: 7 as const, ip: value } : { type: 2 as const, value })), { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }],
      },
    ],
  });
  writeFileSync(files.caFile, ca.cert);
  writeFileSync(files.certFile, leaf.cert);
  writeFileSync(files.keyFile, leaf.private, { mode: 0o600 });
  return files;
}

export function readTls(files: { certFile: string; keyFile: string }) {
  return { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) };
}
