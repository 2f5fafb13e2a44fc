import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The API side starts and messages workflows through their contracts (contracts/), never by importing
 * workflows/: only the worker loads workflow code (it bundles it for its sandbox). A type-only import counts
 * too, since it ties the API's compile to the workflows' and puts them under the API in the layering.
 */
const API_SIDE = ['src/api', 'src/http', 'src/modules', 'src/cli'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? tsFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module a file imports or re-exports, resolved against the file's folder (bare packages left out). */
function importsOf(file: string): string[] {
  return ts
    .preProcessFile(readFileSync(file, 'utf8'), true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.relative('.', path.resolve(path.dirname(file), name)));
}

describe('the API side and workflows/', () => {
  it('no file of src/api, src/http, src/modules or src/cli imports workflows/, by value or by type', () => {
    const offending = API_SIDE.flatMap(tsFiles).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.split(path.sep)[0] === 'workflows')
        .map((target) => `${file} imports ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('sees an import of workflows/ where there is one (the check can fail)', () => {
    expect(importsOf('test/ops/workflow-names.test.ts')).toContain(path.join('workflows', 'index.js'));
  });
});
