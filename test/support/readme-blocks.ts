/**
 * The README's fenced blocks, for test/ops/readme.test.ts: `sh` blocks are read in order, each with the
 * marker the README puts before it, and run as a person at a terminal would, one command after another
 * in one shell; `ts` blocks are compiled; `text` blocks are only shown. A fence of any other language
 * (```bash, ```console, or none) fails the test: it would be neither run nor compiled, unseen.
 *
 * A block is run as written unless an HTML comment right before it says otherwise:
 *   <!-- readme-test: skip (why) -->                  not run (the test does what it says another way)
 *   <!-- readme-test: keeps running until "text" -->  started beside the shell; the next block waits for `text`
 *   <!-- readme-test: after the browser buys -->      run once the test has bought in the browser
 *   <!-- readme-test: after npm start stops -->       run once Ctrl-C has stopped npm start
 * Any other marker fails the test, so a typo cannot skip a block unnoticed.
 */
import { spawn } from 'node:child_process';

export type Marker =
  | { kind: 'run' }
  | { kind: 'skip' }
  | { kind: 'background'; until: string }
  | { kind: 'after-browser' }
  | { kind: 'after-stop' };

/** The languages a README fence may have: run, compiled, shown. */
export const FENCE_LANGUAGES = ['sh', 'ts', 'text'] as const;

export interface Fence {
  /** As written after the backticks; '' for none. */
  language: string;
  /** The `##` section it is in. */
  section: string;
  /** Its line, from 1. */
  line: number;
  /** The HTML comment right before it, without `<!-- readme-test:` and `-->`. */
  comment: string | undefined;
  /** Its lines, the fence's indentation taken off. */
  body: string[];
}

/** Every fenced block of the README, in order. Fences may be indented (inside a list item). */
export function readmeFences(readme: string): Fence[] {
  const fences: Fence[] = [];
  let section = '';
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heading = /^## (.+)$/.exec(lines[i]!)?.[1];
    if (heading) section = heading;
    const open = /^(\s*)```([^`\s]*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const previous = lines.slice(0, i).reverse().find((l) => l.trim() !== '');
    const comment = /^\s*<!-- readme-test: (.+) -->\s*$/.exec(previous ?? '')?.[1];
    const line = i + 1;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(open[1]!.length));
    fences.push({ language: open[2]!, section, line, comment, body });
  }
  return fences;
}

/** The fences that would be neither run, compiled nor meant as text, each as `line: language`. */
export function unreadFences(readme: string): string[] {
  return readmeFences(readme)
    .filter((f) => !(FENCE_LANGUAGES as readonly string[]).includes(f.language))
    .map((f) => `README line ${f.line}: a \`\`\`${f.language} block is not run; write it as \`\`\`sh (run) or \`\`\`text (shown)`);
}

/** The `ts` blocks, each as its source text. */
export function readmeTypeScript(readme: string): string[] {
  return readmeFences(readme)
    .filter((f) => f.language === 'ts')
    .map((f) => f.body.join('\n'));
}

export interface Block {
  /** The `##` section it is in. */
  section: string;
  marker: Marker;
  /** Its commands: continued lines joined, comments and blank lines left out. */
  commands: string[];
}

function markerOf(comment: string | undefined): Marker {
  if (!comment) return { kind: 'run' };
  const text = comment.trim();
  if (/^skip \(.+\)$/.test(text)) return { kind: 'skip' };
  if (text === 'after the browser buys') return { kind: 'after-browser' };
  if (text === 'after npm start stops') return { kind: 'after-stop' };
  const until = /^keeps running until "(.+)"$/.exec(text)?.[1];
  if (until) return { kind: 'background', until };
  throw new Error(`README: unknown marker <!-- readme-test: ${text} -->`);
}

/** Every ```sh block of the README, in order. */
export function readmeBlocks(readme: string): Block[] {
  return readmeFences(readme)
    .filter((f) => f.language === 'sh')
    .map((f) => ({ section: f.section, marker: markerOf(f.comment), commands: commandsOf(f.body) }));
}

function commandsOf(lines: string[]): string[] {
  const commands: string[] = [];
  let pending = '';
  for (const line of lines) {
    if (!pending && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    pending += pending ? `\n${line}` : line;
    if (!line.endsWith('\\')) {
      commands.push(pending);
      pending = '';
    }
  }
  if (pending) commands.push(pending);
  return commands;
}

/** The prefixes of the ids a command leaves to the reader (`whd_…` → `whd`). */
export const placeholdersOf = (command: string): string[] => [...command.matchAll(/\b([a-z]+)_…/g)].map((m) => m[1]!);

/** The last id of a prefix in a text, or undefined. */
export const lastIdOf = (prefix: string, text: string): string | undefined => text.match(new RegExp(`\\b${prefix}_[0-9a-f]{32}\\b`, 'g'))?.at(-1);

/**
 * `biz_…`, `whd_…`, `dsp_…`: the README's way of saying "the id you were just shown". Each is filled with
 * the last id of that prefix that earlier output showed, as a reader copies it, or else the last one the
 * terminal beside showed (npm start's lines); with none shown yet, it fails.
 */
export function fillPlaceholders(command: string, shown: string, terminal = ''): string {
  return command.replace(/\b([a-z]+)_…/g, (placeholder, prefix: string) => {
    const id = lastIdOf(prefix, shown) ?? lastIdOf(prefix, terminal);
    if (!id) throw new Error(`README: "${command}" uses ${placeholder} before anything showed a ${prefix}_ id`);
    return id;
  });
}

export interface Shell {
  /** Runs one command line; its exit status and everything it printed (stderr too, in order). */
  run: (command: string, timeoutMs: number) => Promise<{ status: number; output: string }>;
  close: () => void;
}

/** One bash, as in a terminal: what a command sets (`. .data/demo.env`) stays set for the next. */
export function startShell(cwd: string, env: NodeJS.ProcessEnv): Shell {
  const bash = spawn('bash', ['--norc', '--noprofile'], { cwd, env, stdio: ['pipe', 'pipe', 'inherit'] });
  let printed = '';
  bash.stdout!.on('data', (d) => (printed += String(d)));
  bash.stdin!.write('exec 2>&1\n'); // one stream keeps stdout and stderr in order
  let count = 0;
  return {
    async run(command, timeoutMs) {
      const done = `__readme_command_${++count}_status__`;
      const from = printed.length;
      // In braces, not a subshell, so what it sets stays; no input, so nothing waits on the terminal.
      bash.stdin!.write(`{\n${command}\n} </dev/null\necho "${done}=$?"\n`);
      const deadline = Date.now() + timeoutMs;
      let end: RegExpExecArray | null;
      while (!(end = new RegExp(`${done}=(\\d+)`).exec(printed.slice(from)))) {
        if (Date.now() > deadline || bash.exitCode !== null) {
          throw new Error(`README command did not finish within ${timeoutMs / 1000} s: ${command}\n${printed.slice(from)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return { status: Number(end[1]), output: printed.slice(from, from + end.index) };
    },
    close: () => bash.kill(),
  };
}
