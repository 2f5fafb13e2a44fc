import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { removeRunningService, writeRunningService } from '../../src/dev/running.js';

/** `.data/demo.env`: what a reader's shell and programs started from it see, and what Node's own loaders see. */
describe('demo.env', () => {
  let dir: string;
  const service = {
    apiUrl: 'https://localhost:8443/api/v1',
    testKey: `mp_test_${'a'.repeat(32)}`,
    businessId: `biz_${'0'.repeat(32)}`,
    caFile: '/home/ada/my clone/.data/tls/ca.pem', // a space: one word all the same
    banner: 'banner',
    temporalAddress: '127.0.0.1:7233',
  };
  const expected = { PAYMENTS_API_URL: service.apiUrl, PAYMENTS_API_KEY: service.testKey, PAYMENTS_BUSINESS_ID: service.businessId, PAYMENTS_CA_FILE: service.caFile };
  const read = `process.stdout.write(JSON.stringify(Object.fromEntries(${JSON.stringify(Object.keys(expected))}.map((k) => [k, process.env[k]]))))`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PAYMENTS_')));

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'demo env '));
    writeRunningService(dir, service);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sourced in a shell, is seen by a program started from that shell (exported)', () => {
    const seen = execFileSync('bash', ['--norc', '-c', `. "$1" && "$2" -e "$3"`, 'bash', path.join(dir, 'demo.env'), process.execPath, read], { env: clean, encoding: 'utf8' });
    expect(JSON.parse(seen)).toEqual(expected);
  });

  it('loads with node --env-file, and with process.loadEnvFile as the example shop reads it', () => {
    const file = path.join(dir, 'demo.env');
    expect(JSON.parse(execFileSync(process.execPath, [`--env-file=${file}`, '-e', read], { env: clean, encoding: 'utf8' }))).toEqual(expected);
    const loaded = execFileSync(process.execPath, ['-e', `process.loadEnvFile(${JSON.stringify(file)}); ${read}`], { env: clean, encoding: 'utf8' });
    expect(JSON.parse(loaded)).toEqual(expected);
  });

  it('is gone once npm start stops', () => {
    removeRunningService(dir);
    expect(() => execFileSync('bash', ['-c', `test -e "$1"`, 'bash', path.join(dir, 'demo.env')])).toThrow();
  });
});
