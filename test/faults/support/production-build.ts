/**
 * The production build as an operator gets it: `scripts/build.ts` into a directory of its own, beside
 * `node_modules` holding production dependencies alone (`npm install --omit=dev` from the lock file and
 * the npm cache), and the entry points run with plain `node`, no TypeScript loader. A load hook in each
 * process records every module it loads, so a test can show no TypeScript (or the bundler's loader) ran.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnLogged, type ServiceProcess } from '../../support/processes.js';

const repo = path.resolve(import.meta.dirname, '../../..');
/**
 * The Dockerfile's runtime install, flag for flag. `npm ci` refuses this lock file (scripts/run.sh says
 * why); `npm install` honours it. No optional packages: they are embedded PostgreSQL's and SWC's
 * binaries, the npm Node and pg-cloudflare, none of which a production process loads (the workflow
 * bundle is prebuilt, so SWC never runs). No install scripts: none of what remains needs one.
 */
export const INSTALL = ['install', '--omit=dev', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund'];

/** Runs a command to its end; rejects with its output when it fails. */
export function run(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? repo, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} ended with ${code ?? signal}:\n${output.slice(-4000)}`));
    });
  });
}

/**
 * Production dependencies for this lock file, installed once per lock file under node_modules/.cache
 * (the first time takes a minute; later runs reuse it). Installed beside and renamed into place, so two
 * runs at once never see half an install.
 */
async function productionDependencies(): Promise<string> {
  const lock = readFileSync(path.join(repo, 'package-lock.json'));
  const key = createHash('sha256').update(lock).update(INSTALL.join(' ')).digest('hex').slice(0, 16);
  const dir = path.join(repo, 'node_modules/.cache/payments-production-deps', key);
  if (existsSync(path.join(dir, 'node_modules'))) return path.join(dir, 'node_modules');
  const staging = `${dir}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(repo, file), path.join(staging, file));
  await run('npm', [...INSTALL, '--offline', '--loglevel=error'], { cwd: staging, timeoutMs: 300_000 });
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another run got there first
  }
  return path.join(dir, 'node_modules');
}

export interface ProductionApp {
  /** The directory holding dist/, package.json and node_modules, as in the image's /app. */
  root: string;
  /** The load hook's file: passed to node with --import. */
  loadHook: string;
}

/** Builds into `<root>/dist` and links production dependencies beside it, the two at once. */
export async function buildProductionApp(root: string): Promise<ProductionApp> {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const [, modules] = await Promise.all([
    run(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--out-dir', path.join(root, 'dist')], { timeoutMs: 300_000 }),
    productionDependencies(),
  ]);
  copyFileSync(path.join(repo, 'package.json'), path.join(root, 'package.json'));
  symlinkSync(modules, path.join(root, 'node_modules'));
  const loadHook = path.join(root, 'record-loads.mjs');
  writeFileSync(
    loadHook,
    `import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
// Every module this process loads, one URL a line, to the file LOADED_MODULES_FILE names.
registerHooks({ load(url, context, next) { appendFileSync(process.env.LOADED_MODULES_FILE, url + '\\n'); return next(url, context); } });
`,
  );
  return { root, loadHook };
}

/** Modules that must never load in production: TypeScript sources, a TypeScript loader, the bundler's loader. */
export function forbiddenLoads(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((url) => /\.[cm]?tsx?$/.test(url) || /\/node_modules\/(tsx|typescript|swc-loader|@swc\/jest)\//.test(url));
}

/** `node dist/<entry>` in the app's directory, with the load hook and `env` alone (nothing inherited). */
export function startEntry(app: ProductionApp, entry: string, env: Record<string, string>, args: string[] = []): ServiceProcess {
  const argv = ['--enable-source-maps', '--import', app.loadHook, `dist/${entry}`, ...args];
  return spawnLogged(entry, process.execPath, argv, { env, cwd: app.root, logDir: path.join(app.root, 'logs') });
}
