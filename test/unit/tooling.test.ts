/**
 * Contributor tooling: the lint configuration enforces the layer rule and the "every disabled rule
 * says why" rule (checked with the real ESLint on real source files), `npm test` runs lint in its
 * place, and the repository's own editor files are not mistaken for MCP configs or specs.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ESLint } from 'eslint';
import { detectWorkspace } from '../../src/core/discovery/detect';
import { repoRoot } from './fixturePaths';

const eslint = new ESLint({ cwd: repoRoot });

/** Rule ids ESLint reports for `code` linted as if it were the file at `path` (relative to the repo). */
async function findings(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, path) });
  assert.ok(result, 'one result');
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${path} parses`);
  return result.messages.map((m) => m.ruleId ?? '');
}

const VSCODE_IMPORTS = [
  "import * as vscode from 'vscode';\nexport const w = vscode.window;\n",
  "export type { Uri } from 'vscode';\n",
  "// eslint-disable-next-line @typescript-eslint/no-require-imports -- a test of the rule\nexport const v: unknown = require('vscode');\n",
  "export const v = import('vscode');\n",
];

test('lint: src/core and src/cli may not import vscode in any form; src/extension may', { timeout: 120_000 }, async () => {
  // Real files, so the type-aware rules find them in the project (their text is replaced).
  for (const code of VSCODE_IMPORTS) {
    for (const path of ['src/core/bounds.ts', 'src/cli/main.ts']) {
      const ids = await findings(path, code);
      assert.ok(
        ids.some((id) => id === 'no-restricted-imports' || id === 'no-restricted-syntax'),
        `${path} flags ${JSON.stringify(code)}: ${ids.join(', ')}`,
      );
    }
    const ids = await findings('src/extension/extension.ts', code);
    assert.ok(!ids.includes('no-restricted-imports') && !ids.includes('no-restricted-syntax'), `src/extension may import vscode: ${ids.join(', ')}`);
  }
});

test('lint: a disable directive needs a reason, and an unused one is an error', { timeout: 120_000 }, async () => {
  const path = 'src/core/bounds.ts';
  assert.deepEqual(await findings(path, 'export function f(): void {\n  // eslint-disable-next-line no-debugger\n  debugger;\n}\n'), [
    '@eslint-community/eslint-comments/require-description',
  ]);
  assert.deepEqual(await findings(path, 'export function f(): void {\n  // eslint-disable-next-line no-debugger -- a test of the rule\n  debugger;\n}\n'), []);
  const unused = await findings(path, 'export function f(): void {\n  // eslint-disable-next-line no-debugger -- nothing to silence\n  return;\n}\n');
  assert.equal(unused.length, 1, 'the unused directive is reported');
});

test('npm test runs build, typecheck, lint, the test host install, unit and integration tests, in that order', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  // The host (Chromium among it) before the unit tests: their report tests load pages in Chromium.
  assert.equal(pkg.scripts.test, 'npm run build && npm run typecheck && npm run lint && npm run test:host && npm run test:unit && npm run test:integration');
  assert.equal(pkg.scripts['test:host'], 'bash scripts/install-test-host.sh');
  assert.match(pkg.scripts.lint ?? '', /^eslint\b/);
  assert.match(pkg.scripts.format ?? '', /^prettier --write\b/);
  assert.match(pkg.scripts.watch ?? '', /esbuild\.mjs --watch/);
});

test("the repository's editor and tooling files are neither MCP configs nor specs", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-tooling-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of ['.vscode', '.editorconfig', '.prettierrc.json', '.prettierignore', 'eslint.config.mjs', 'tsconfig.json']) {
    cpSync(join(repoRoot, name), join(dir, name), { recursive: true });
  }
  const found = await detectWorkspace(dir);
  assert.deepEqual(found, { definitions: [], specFiles: [], problems: [] });
});
