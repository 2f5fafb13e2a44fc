import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * What a merchant installs: each package's own build (tsc -p packages/<name>/tsconfig.json, as
 * `npm run build -w @payments/<name>` runs it) emits ES modules and declarations into its dist/, and
 * plain node (no TypeScript loader, no source condition) imports the package by name from there.
 */
const repo = path.resolve(import.meta.dirname, '../..');
const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');

function build(name: string): string {
  const dir = path.join(repo, 'packages', name);
  rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { cwd: repo, stdio: 'pipe' });
  return path.join(dir, 'dist');
}

/** Imports the package by its name in a plain node process and lists its exports. */
const exportsOf = (name: string) =>
  JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', `console.log(JSON.stringify(Object.keys(await import('${name}')).sort()))`], { cwd: repo, encoding: 'utf8' }));

describe('the kit’s packages build', () => {
  it('@payments/client: ESM and .d.ts in dist/, loaded by plain node, no Node built-in anywhere in it', () => {
    const dist = build('client');
    expect(existsSync(path.join(dist, 'index.js')) && existsSync(path.join(dist, 'index.d.ts'))).toBe(true);
    expect(existsSync(path.join(dist, 'generated/api.d.ts'))).toBe(true);
    expect(exportsOf('@payments/client')).toEqual(['ListIterator', 'PaymentsApiError', 'PaymentsConnectionError', 'createPaymentsClient']);
    const js = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    for (const file of js) expect({ file, nodeImport: /from ['"]node:|require\(/.test(readFileSync(path.join(dist, file), 'utf8')) }).toEqual({ file, nodeImport: false });
  }, 120_000);

  it('@payments/webhooks: ESM and .d.ts in dist/, loaded by plain node', () => {
    const dist = build('webhooks');
    expect(existsSync(path.join(dist, 'index.js')) && existsSync(path.join(dist, 'index.d.ts'))).toBe(true);
    expect(readFileSync(path.join(dist, 'events.d.ts'), 'utf8')).toContain('CheckoutSucceededEvent');
    expect(exportsOf('@payments/webhooks')).toEqual([
      'WebhookHeaderError',
      'WebhookPayloadError',
      'WebhookSignatureError',
      'WebhookTimestampError',
      'WebhookVerificationError',
      'constructEvent',
      'parseSignatureHeader',
    ]);
  }, 120_000);
});
