/**
 * The rules of eslint.config.js that are about this codebase's shape rather than import cycles: no
 * production code reaches src/dev/, no workflow is started by a name in a string, the API's layers
 * (src/http below the modules, the composition in src/api above them) import one way, and a module is
 * entered only through its face (its index.js) from anywhere but test/. Each is shown to
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
    expect(await problems('src/api/probe.ts', "import { refundOperations } from '../modules/refunds/index.js';\nexport const r = refundOperations;\n")).toEqual([]);
  });

  it("refuses a module or the composition from src/http, which imports neither, and lets a module's HTTP edge import src/http", async () => {
    for (const code of [
      "import { refundOperations } from '../modules/refunds/index.js';\nexport const r = refundOperations;\n",
      "import type { AppDeps } from '../modules/app-deps.js';\nexport type D = AppDeps;\n",
      "import { createApp } from '../api/app.js';\nexport const a = createApp;\n",
    ]) {
      expect(await problems('src/http/probe.ts', code)).toEqual([expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .*src\/http is the toolkit below the modules/)]);
    }
    expect(await problems('src/http/openapi/probe.ts', "import { callerOf } from '../../modules/businesses/index.js';\nexport const c = callerOf;\n")).toEqual([
      expect.stringMatching(/src\/http is the toolkit below the modules/),
    ]);
    const edge = "import { ApiError } from '../../http/errors.js';\nexport const e = ApiError;\n";
    for (const file of ['src/modules/refunds/probe.routes.ts', 'src/modules/refunds/probe.schemas.ts', 'src/modules/refunds/probe.middleware.ts']) {
      expect(await problems(file, edge)).toEqual([]);
    }
    expect(await problems('src/modules/refunds/probe.service.ts', edge)).toEqual([expect.stringMatching(/Module code does not import src\/http/)]);
  });

  describe("a module's face", () => {
    const face = /^no-restricted-imports: .*Import another module through its face/;
    const deep = (from: string) => `import { Refund } from '${from}refund.entity.js';\nexport const r = Refund;\n`;
    const viaFace = (from: string) => `import { Refund } from '${from}index.js';\nexport const r = Refund;\n`;

    it("refuses another module's inside from a module, by value or by type, and allows its index", async () => {
      expect(await problems('src/modules/disputes/probe.ts', deep('../refunds/'))).toEqual([expect.stringMatching(face)]);
      expect(await problems('src/modules/disputes/probe.ts', "import type { Refund } from '../refunds/refund.entity.js';\nexport type R = Refund;\n")).toEqual([
        expect.stringMatching(face),
      ]);
      expect(await problems('src/modules/disputes/probe.ts', viaFace('../refunds/'))).toEqual([]);
      // A file in a module's subfolder: the sibling is one `../` further, its own module's files nearer.
      expect(await problems('src/modules/processor/simulator/probe.ts', deep('../../refunds/'))).toEqual([expect.stringMatching(face)]);
      expect(await problems('src/modules/processor/simulator/probe.ts', viaFace('../../refunds/'))).toEqual([]);
      expect(await problems('src/modules/processor/simulator/probe.ts', "import { parseCard } from '../card.rules.js';\nexport const p = parseCard;\n")).toEqual([]);
      // Beside the modules (app-deps.ts), a module is `./<m>/`.
      expect(await problems('src/modules/probe.ts', deep('./refunds/'))).toEqual([expect.stringMatching(face)]);
      expect(await problems('src/modules/probe.ts', viaFace('./refunds/'))).toEqual([]);
    });

    it("lets a module import its own files, and the modules' neighbours (src/domain, src/db) as before", async () => {
      expect(await problems('src/modules/refunds/probe.ts', deep('./'))).toEqual([]);
      expect(await problems('src/modules/refunds/probe.ts', "import { newId } from '../../domain/ids.js';\nexport const n = newId;\n")).toEqual([]);
      expect(await problems('src/modules/refunds/probe.ts', "import type { AppDeps } from '../app-deps.js';\nexport type D = AppDeps;\n")).toEqual([]);
    });

    it("refuses a module's inside from the rest of the repository but test/, and allows its index", async () => {
      for (const [file, up] of [
        ['src/api/probe.ts', '../'],
        ['src/main/probe.ts', '../'],
        ['src/temporal/probe.ts', '../'],
        ['activities/probe.ts', '../src/'],
        ['bench/floors/probe.ts', '../../src/'],
        ['scripts/probe.ts', '../src/'],
      ]) {
        expect(await problems(file, deep(`${up}modules/refunds/`))).toEqual([expect.stringMatching(face)]);
        expect(await problems(file, deep(`${up}modules/processor/simulator/`))).toEqual([expect.stringMatching(face)]);
        expect(await problems(file, viaFace(`${up}modules/refunds/`))).toEqual([]);
      }
      // Tests may reach inside a module, to test its parts on their own.
      expect(await problems('test/refunds/probe.test.ts', deep('../../src/modules/refunds/'))).toEqual([]);
    });

    it('keeps the src/dev/ rule beside it in every block that sets the rule', async () => {
      const both = "import { devKeyFile } from '../../dev/key-file.js';\nimport { Refund } from '../refunds/refund.entity.js';\nexport const f = [devKeyFile, Refund];\n";
      expect(await problems('src/modules/disputes/probe.ts', both)).toEqual([
        expect.stringMatching(/Production code imports nothing from src\/dev\//),
        expect.stringMatching(face),
      ]);
    });
  });
});
