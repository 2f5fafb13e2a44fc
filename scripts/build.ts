/**
 * The production build (`npm run build`, or `scripts/run.sh build --out-dir <dir>`): compiles src/,
 * workflows/ and activities/ to ES modules (tsconfig.build.json), copies the files that are not
 * TypeScript (the checkout page's assets) beside them, writes the three entry points and prebuilds the
 * Temporal workflow bundle, so that `node dist/api.js`, `node dist/worker.js` and `node dist/migrate.js`
 * run on production dependencies alone: no TypeScript loader, no bundling at start.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

const root = path.resolve(import.meta.dirname, '..');
const outIndex = process.argv.indexOf('--out-dir');
const outDir = path.resolve(outIndex >= 0 ? process.argv[outIndex + 1] : path.join(root, 'dist'));
const SOURCES = ['src', 'workflows', 'activities'];
/** The entry points and the module each one runs (each runs its main() when imported). */
const ENTRIES = {
  'api.js': 'src/main/api.js',
  'worker.js': 'src/main/worker.js',
  'migrate.js': 'src/main/migrate.js',
  // The operator's CLI (`npm run admin` from the sources): `node dist/admin.js ledger verify` in the image.
  'admin.js': 'src/main/cli.js',
};

const started = Date.now();
const step = (what: string) => process.stderr.write(`build: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);

rmSync(outDir, { recursive: true, force: true });
step(`tsc -p tsconfig.build.json → ${path.relative(root, outDir) || outDir}`);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// A type error fails the build: what is shipped is what was type-checked.
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', outDir], { stdio: 'inherit' });
if (compiled.status !== 0) {
  process.stderr.write('build: tsc failed\n');
  process.exit(compiled.status ?? 1);
}

// Files read at run time relative to their module (new URL('./assets/…', import.meta.url)).
function copyNonTypeScript(dir: string): number {
  let copied = 0;
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) copied += copyNonTypeScript(relative);
    else if (!entry.name.endsWith('.ts')) {
      mkdirSync(path.join(outDir, dir), { recursive: true });
      copyFileSync(path.join(root, relative), path.join(outDir, relative));
      copied++;
    }
  }
  return copied;
}
const assets = SOURCES.reduce((n, dir) => n + copyNonTypeScript(dir), 0);
step(`copied ${assets} non-TypeScript files`);

// dist/ is ESM wherever it is copied to, with or without the repository's package.json beside it.
writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify({ type: 'module', private: true }, null, 2)}\n`);
// Each entry point turns on Node's on-disk compile cache (NODE_COMPILE_CACHE, else the OS's temporary
// directory) before it loads the service, so a restart skips compiling its two thousand modules again.
for (const [entry, target] of Object.entries(ENTRIES)) {
  writeFileSync(
    path.join(outDir, entry),
    `import { enableCompileCache } from 'node:module';\n\nenableCompileCache?.();\nawait import('./${target}');\n`,
  );
}

// The same modules as src/temporal/worker.ts hands the SDK when it bundles at start from the sources
// (the SDK's loader strips their types as tsc does). Bundled from here, not from the output directory,
// so that @temporalio/workflow resolves whether or not that directory sits beside node_modules.
const { code } = await bundleWorkflowCode({
  workflowsPath: path.join(root, 'workflows/index.ts'),
  workflowInterceptorModules: [path.join(root, 'workflows/failure-metrics.ts')],
  // The worker's data converter names it (src/temporal/payload-codec.ts): workflow failures' messages are sealed too.
  failureConverterPath: path.join(root, 'src/temporal/failure-converter.cjs'),
  logger: { info() {}, warn: (m: string) => process.stderr.write(`build: bundler: ${m}\n`), error() {}, debug() {}, trace() {}, log() {} } as never,
});
writeFileSync(path.join(outDir, 'workflow-bundle.js'), code);
step(`workflow bundle written (${Math.round(code.length / 1024)} KiB); done`);
