/**
 * Builds the workflow bundle once, in the benchmark's own process, as `npm run build` does (scripts/build.ts),
 * and hands its path to the worker (WORKFLOW_BUNDLE_PATH). The worker it measures then never runs webpack,
 * which by itself raised its peak RSS by hundreds of MB: a production worker loads dist/workflow-bundle.js.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

export async function buildWorkflowBundle(dir: string): Promise<string> {
  const root = process.cwd();
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.join(root, 'workflows/index.ts'),
    workflowInterceptorModules: [path.join(root, 'workflows/failure-metrics.ts')],
    failureConverterPath: path.join(root, 'src/temporal/failure-converter.cjs'),
    logger: { info() {}, warn: (m: string) => process.stderr.write(`bench: bundler: ${m}\n`), error() {}, debug() {}, trace() {}, log() {} } as never,
  });
  const file = path.join(dir, 'workflow-bundle.js');
  writeFileSync(file, code);
  return file;
}
