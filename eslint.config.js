// ESLint guards the import direction (docs/architecture.md, "How lint enforces it") and how workflows are
// started, nothing else: no style rules, so it never asks for reformatting. `npm test` runs it first
// (scripts/run.sh).
import { builtinModules } from 'node:module';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Node's built-in modules by their bare names (`fs`); the `node:` spelling is a pattern below. */
const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_') && !name.startsWith('node:'));

/** The API's composition (src/api/), as a module (or src/modules/app-deps.ts) would name it. */
const composition = {
  group: ['**/api/**', '../api', '../../api'],
  message: 'A module does not import the composition (src/api/): the route list imports the module, not the other way round.',
};

/** What production code may not load: src/dev/ (the entry points, src/main/, are the exception). */
const devTooling = {
  group: ['**/dev/*', '**/dev/**', './dev/*'],
  message: 'Production code imports nothing from src/dev/: take the value from configuration, resolved in src/main.',
};

/**
 * A module's face (docs/architecture.md, "A module's face"): from outside src/modules/<m>/, only its
 * `index.js`. Each pattern is the part of an import path that reaches a module's folder; what follows it must
 * be `index.js`. Regexes, not globs: a glob for "`..`, a folder, a file" would also take `../../http/…`.
 */
const faceMessage =
  "Import another module through its face (src/modules/<m>/index.js): what its index does not name is the module's own. Only test/ reaches inside a module.";
const throughFace = (reach) => ({ regex: `${reach}(?!index\\.js$)`, message: faceMessage });
/** A module by a path that names src/modules/, from anywhere. */
const faceFromAnywhere = throughFace('(^|/)modules/[^/]+/');
/** A sibling module from a file `depth` folders inside a module (`../refunds/…` from `disputes/x.ts`). */
const faceOfSibling = (depth) => throughFace(`^${'\\.\\./'.repeat(depth)}[^./][^/]*/`);

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'packages/*/dist/**', '.data/**', 'scratch/**', '.cache/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
    plugins: { import: importX, '@typescript-eslint': tseslint.plugin },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Imports name the emitted `.js`; the resolver finds the `.ts` beside it, as tsc (NodeNext) does.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
  },
  {
    // One direction between files: a cycle makes load order matter and the layers meaningless. Type-only
    // imports are not followed (they vanish at run time): a workflow names its activities' type.
    files: ['src/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts', 'contracts/**/*.ts'],
    rules: { 'import/no-cycle': 'error' },
  },
  {
    // The workflow sandbox (and the contracts it loads): deterministic code only. No Node built-ins, no
    // service code, and activities by type only, as in Temporal's samples.
    files: ['workflows/**/*.ts', 'contracts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code is deterministic: no Node built-ins (I/O belongs in an activity).' })),
          patterns: [
            { group: ['node:*'], message: 'Workflow code is deterministic: no Node built-ins (I/O belongs in an activity).' },
            { group: ['**/src/**', '../src', '../../src'], message: 'Workflow code does not load the service: move what is shared to contracts/.' },
            { group: ['**/activities/**', '../activities'], allowTypeImports: true, message: 'Workflows take activities by type only (proxyActivities<…>).' },
          ],
        },
      ],
    },
  },
  {
    // Activities run workflow steps; they take shared values from contracts/, never from workflows/.
    files: ['activities/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/workflows/**', '../workflows'], allowTypeImports: true, message: 'Activities import no values from workflows/: share them through contracts/.' }] },
      ],
    },
  },
  {
    // The API's layers, one way: the composition (src/api/: the app, the route list, the document's
    // assembly) imports the modules, the modules' HTTP edges import the toolkit (src/http/), and the
    // toolkit imports neither. A module never imports the composition, its HTTP edge included.
    files: ['src/modules/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [composition] }] },
  },
  {
    // Domain code does not know HTTP. A module's HTTP edge (its routes, its request/response schemas and
    // their OpenAPI description, the Koa middleware its routes run behind) is where src/http is used; the
    // rest of a module is not. (It restates the block above: the last block that sets a rule wins.)
    files: ['src/modules/**/*.ts'],
    ignores: ['src/modules/**/*.routes.ts', 'src/modules/**/*.schemas.ts', 'src/modules/**/*.middleware.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            composition,
            { group: ['**/http/**', '../../http'], message: 'Module code does not import src/http: throw a domain error, take what it needs as a parameter.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/modules/**', '**/api/**', '../api', '../../api'],
              message: 'src/http is the toolkit below the modules: it imports no module and not the composition (src/api/). Take what a module knows as a parameter.',
            },
          ],
        },
      ],
    },
  },
  // `no-restricted-imports` below: a later block that sets it for a file replaces an earlier one, so each
  // block restates every pattern that applies to its files (the faces; src/dev/ but in the entry points).
  {
    // A module's inside is its own: everything but test/ takes another module through its face. Tests
    // may reach inside, to test a module's parts on their own (docs/architecture.md).
    files: ['**/*.ts'],
    ignores: ['test/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [faceFromAnywhere] }] },
  },
  {
    // src/dev/ is the development machine's tooling (embedded PostgreSQL, the dev server, generated keys
    // and certificates): what runs in production never loads it. Only the entry points (src/main/) reach it.
    files: ['src/**/*.ts', 'activities/**/*.ts', 'contracts/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['src/main/**', 'src/dev/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [devTooling, faceFromAnywhere] }] },
  },
  {
    // Beside the modules (src/modules/app-deps.ts), a module is `./<m>/`.
    files: ['src/modules/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [devTooling, faceFromAnywhere, throughFace('^\\./[^/]+/')] }] },
  },
  // Inside a module, a sibling module is as many `../` away as the file is deep; its own files are nearer.
  ...[1, 2, 3].map((depth) => ({
    files: [`src/modules/*/${'*/'.repeat(depth - 1)}*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [devTooling, faceFromAnywhere, faceOfSibling(depth)] }] },
  })),
  {
    // A workflow is started by reference (in the service, its contract from contracts/; in workflows/, the
    // function), never by a name in a string: the compiler then checks its arguments against the contract.
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['Literal', 'TemplateLiteral'].flatMap((type) => [
          {
            selector: `CallExpression[callee.object.property.name='workflow'][callee.property.name=/^(start|execute|signalWithStart|startUpdateWithStart|executeUpdateWithStart)$/][arguments.0.type='${type}']`,
            message: 'Start a workflow by reference (its contract from contracts/, or the function in workflows/), not by a name in a string.',
          },
          {
            selector: `CallExpression[callee.name=/^(executeChild|startChild)$/][arguments.0.type='${type}']`,
            message: 'Start a workflow by reference (its contract from contracts/, or the function in workflows/), not by a name in a string.',
          },
          {
            selector: `NewExpression[callee.name='WithStartWorkflowOperation'][arguments.0.type='${type}']`,
            message: 'Start a workflow by reference (its contract from contracts/, or the function in workflows/), not by a name in a string.',
          },
        ]),
      ],
    },
  },
);
