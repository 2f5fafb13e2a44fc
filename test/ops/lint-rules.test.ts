/**
 * The rules of eslint.config.js that are about this codebase's shape rather than import cycles: no
 * production code reaches src/dev/, no workflow is started by a name in a string, and the API's layers
 * (src/http below the modules, the composition in src/api above them) import one way. Each is shown to
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

  it('refuses an import of the composition (src/api/) from a module, its HTTP edge included', async () => {
    const code = "import { apiRoutes } from '../../api/routes.js';\nexport const r = apiRoutes;\n";
    for (const file of ['src/modules/refunds/probe.routes.ts', 'src/modules/refunds/probe.service.ts', 'src/modules/idempotency/probe.middleware.ts']) {
      expect(await problems(file, code)).toEqual([expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .*the composition/)]);
    }
    expect(await problems('src/modules/probe.ts', code.replace('../../api/', '../api/'))).toEqual([expect.stringMatching(/the composition/)]);
    // The composition itself imports the modules.
    expect(await problems('src/api/probe.ts', "import { refundOperations } from '../modules/refunds/refund.routes.js';\nexport const r = refundOperations;\n")).toEqual([]);
  });

  it("refuses a module or the composition from src/http, which imports neither, and lets a module's HTTP edge import src/http", async () => {
    for (const code of [
      "import { refundOperations } from '../modules/refunds/refund.routes.js';\nexport const r = refundOperations;\n",
      "import type { AppDeps } from '../modules/app-deps.js';\nexport type D = AppDeps;\n",
      "import { createApp } from '../api/app.js';\nexport const a = createApp;\n",
    ]) {
      expect(await problems('src/http/probe.ts', code)).toEqual([expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .*src\/http is the toolkit below the modules/)]);
    }
    expect(await problems('src/http/openapi/probe.ts', "import { callerOf } from '../../modules/businesses/auth.middleware.js';\nexport const c = callerOf;\n")).toEqual([
      expect.stringMatching(/src\/http is the toolkit below the modules/),
    ]);
    const edge = "import { ApiError } from '../../http/errors.js';\nexport const e = ApiError;\n";
    for (const file of ['src/modules/refunds/probe.routes.ts', 'src/modules/refunds/probe.schemas.ts', 'src/modules/refunds/probe.middleware.ts']) {
      expect(await problems(file, edge)).toEqual([]);
    }
    expect(await problems('src/modules/refunds/probe.service.ts', edge)).toEqual([expect.stringMatching(/Module code does not import src\/http/)]);
  });
});
