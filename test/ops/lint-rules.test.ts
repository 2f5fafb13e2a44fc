/**
 * The two rules of eslint.config.js that are about this codebase's shape rather than import cycles: no
 * production code reaches src/dev/, and no workflow is started by a name in a string. Each is shown to
 * fire on a probe and to stay quiet on its lawful twin, so a config change that silences one fails here.
 */
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });
const problems = async (filePath: string, code: string) =>
  (await eslint.lintText(code, { filePath }))[0].messages.map((m) => `${m.ruleId}: ${m.message}`);

describe('eslint.config.js', () => {
  it('refuses an import of src/dev/ from production code, and allows it in the entry points', async () => {
    const code = "import { devKeyFile } from '../../dev/key-file.js';\nexport const f = devKeyFile;\n";
    expect(await problems('src/modules/webhooks/probe.ts', code)).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*Production code imports nothing from src\/dev\//),
    ]);
    expect(await problems('src/main/probe.ts', code.replace('../../dev/', '../dev/'))).toEqual([]);
  });

  it('refuses a workflow started by a name in a string, and allows one started by reference', async () => {
    const byName = "export const f = (c: any) => c.workflow.start('refundWorkflow', {});\n";
    const withStart = "import { WithStartWorkflowOperation } from '@temporalio/client';\nexport const o = new WithStartWorkflowOperation(`checkoutWorkflow`, {} as never);\n";
    for (const code of [byName, withStart]) {
      expect(await problems('src/modules/refunds/probe.ts', code)).toEqual([expect.stringMatching(/^no-restricted-syntax: Start a workflow by reference/)]);
    }
    expect(await problems('src/modules/refunds/probe.ts', "export const f = (c: any, w: any) => c.workflow.start(w, {});\n")).toEqual([]);
    // Raw SQL through `execute` is not a workflow.
    expect(await problems('src/modules/refunds/probe.ts', "export const f = (tx: any) => tx.execute('select 1');\n")).toEqual([]);
  });
});
