// ESLint flat config: typescript-eslint's type-aware recommended rules, tuned where this code base
// has a deliberate reason (each reason next to its rule), plus the layer rule (core and CLI never
// import `vscode`) and no disable directive without a reason. Formatting is Prettier's job
// (.prettierrc.json): no stylistic rules here.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import tseslint from 'typescript-eslint';

/** Node's globals for the plain JavaScript build and test scripts (no `globals` dependency for a handful of names). */
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'fetch',
    'AbortSignal',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'require',
    'module',
    '__dirname',
  ].map((name) => [name, 'readonly']),
);

/** Core and the CLI run without VS Code: the editor is one front end among others. */
const NO_VSCODE = 'src/core and src/cli never import vscode: put editor code in src/extension and pass what core needs through a port.';
const noVscode = {
  'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: NO_VSCODE }] }],
  // no-restricted-imports sees import and export declarations only; these are the other two ways in.
  'no-restricted-syntax': [
    'error',
    { selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']", message: NO_VSCODE },
    { selector: "ImportExpression[source.value='vscode']", message: NO_VSCODE },
  ],
};

export default defineConfig(
  {
    ignores: ['dist/', 'out/', 'node_modules/', '.vscode-test/', '.agentseer-test/', 'bench/results/', 'evals/', 'test/integration/workspaces/'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  comments.recommended,
  {
    rules: {
      // A disabled rule must say why, after `--`.
      '@eslint-community/eslint-comments/require-description': 'error',
      // A block disable must be closed again (a whole file may opt out of a rule, with its reason on top).
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
    },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Untyped values enter only from JSON (JSON.parse, jsonc-parser nodes, `Array.isArray` on
      // `unknown`) and a few library typings; the code checks them at run time (isRecord, zod,
      // typeof) rather than by casts, so the no-unsafe-* family would demand casts that check
      // nothing. `no-explicit-any` stays on: nobody writes `any` without a reason.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // JSON values (registry arguments, schema descriptions, thrown causes) are stringified on
      // purpose to show what the file or server said.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      // Async methods that implement promise-returning interfaces (caches, the MCP transport) stay
      // async without awaiting, so that a throw becomes a rejection like the interface promises.
      '@typescript-eslint/require-await': 'off',
      // An aborted operation rejects with its signal's reason, as the platform does (an `AbortError`
      // DOMException or whatever the caller passed to abort()).
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // `_`-prefixed names are deliberately unused (callback signatures, destructuring to omit a key).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/cli/**/*.ts'],
    rules: noVscode,
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: nodeGlobals },
  },
  {
    // The fake language-model extension is plain CommonJS loaded by the extension host.
    files: ['test/integration/extensions/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
