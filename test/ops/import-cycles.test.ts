/**
 * `npm run cycles` (scripts/run.sh cycles), which `npm test` runs beside tsc and ESLint: ESLint's
 * import/no-cycle skips type-only imports, so this is the check that keeps docs/architecture.md's
 * "no cycle, type-only imports included" true. Shown here to fire on a cycle made of `import type` alone,
 * and to pass the repository as it is.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const cycles = (...dirs: string[]) => {
  const run = spawnSync('bash', ['scripts/run.sh', 'cycles', ...dirs], { encoding: 'utf8' });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
};

let probe: string;
beforeAll(() => {
  probe = mkdtempSync(path.join(os.tmpdir(), 'cycle-probe-'));
});
afterAll(() => rmSync(probe, { recursive: true, force: true }));

describe('npm run cycles', () => {
  it('refuses a cycle of type-only imports, as the webhook schedule once made one', () => {
    // The shape of the circle it replaced: an activity's deps type → a service → the workflow's value →
    // the workflow's `import type` of the activity.
    writeFileSync(path.join(probe, 'activity.ts'), "import type { Service } from './service.js';\nexport interface Activity { service?: Service }\n");
    writeFileSync(path.join(probe, 'service.ts'), "import { DELAYS } from './workflow.js';\nexport interface Service { delays: typeof DELAYS }\n");
    writeFileSync(path.join(probe, 'workflow.ts'), "import type { Activity } from './activity.js';\nexport const DELAYS = [0];\nexport type Run = Activity;\n");
    const { code, output } = cycles(probe);
    expect(code).toBe(1);
    expect(output).toContain('activity.ts > service.ts > workflow.ts');

    // Its lawful twin: the shared value moved out of the workflow, into a module both import.
    writeFileSync(path.join(probe, 'contract.ts'), 'export const DELAYS = [0];\n');
    writeFileSync(path.join(probe, 'service.ts'), "import { DELAYS } from './contract.js';\nexport interface Service { delays: typeof DELAYS }\n");
    expect(cycles(probe)).toEqual({ code: 0, output: expect.stringContaining('No circular dependency found') });
  }, 60_000);

  it('finds no cycle in the repository', () => {
    expect(cycles()).toEqual({ code: 0, output: expect.stringContaining('No circular dependency found') });
  }, 60_000);
});
