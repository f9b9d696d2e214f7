/** Architecture rules that the compiler cannot check. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { COMMAND_IDS } from '../../src/extension/commandIds';
import { repoRoot } from './fixturePaths';
import { cycles, fileGraph, folderGraph } from './importGraph';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Matches `import … from 'vscode'`, `import('vscode')`, `require('vscode')` and `export … from 'vscode'`. */
const VSCODE_IMPORT = /(?:from\s*|import\s*\(\s*|require\s*\(\s*|import\s+)['"]vscode['"]/;

test('the import rule recognises every form of importing vscode', () => {
  for (const line of [
    "import * as vscode from 'vscode';",
    'import type { Uri } from "vscode";',
    "const v = require('vscode');",
    "const v = await import('vscode');",
    "export { Uri } from 'vscode';",
    "import 'vscode';",
  ]) {
    assert.match(line, VSCODE_IMPORT, line);
  }
  assert.doesNotMatch("import { z } from 'zod'; // vscode", VSCODE_IMPORT);
});

test('src/core never imports vscode', () => {
  const core = join(repoRoot, 'src', 'core');
  const files = tsFiles(core);
  assert.ok(files.length > 5, 'core sources found');
  const offenders = files.filter((f) => VSCODE_IMPORT.test(readFileSync(f, 'utf8'))).map((f) => relative(repoRoot, f));
  assert.deepEqual(offenders, []);
});

test('src/cli never imports vscode or the extension', () => {
  const files = tsFiles(join(repoRoot, 'src', 'cli'));
  const offenders = files.filter((f) => {
    const text = readFileSync(f, 'utf8');
    return VSCODE_IMPORT.test(text) || /from ['"][./]*\/extension\//.test(text);
  });
  assert.deepEqual(offenders, []);
});

test('every command in the command table is declared in package.json, and the other way round', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    contributes: { commands: { command: string }[] };
    engines: { vscode: string };
    devDependencies: Record<string, string>;
  };
  const declared = pkg.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual(declared, [...COMMAND_IDS].sort());
});

test('@types/vscode is not newer than engines.vscode', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    engines: { vscode: string };
    devDependencies: Record<string, string>;
  };
  const engine = pkg.engines.vscode
    .replace(/^[\^~>=]+/, '')
    .split('.')
    .map(Number);
  const types = (pkg.devDependencies['@types/vscode'] ?? '')
    .replace(/^[\^~]/, '')
    .split('.')
    .map(Number);
  assert.ok((types[0] ?? 0) * 1e6 + (types[1] ?? 0) <= (engine[0] ?? 0) * 1e6 + (engine[1] ?? 0), `${types.join('.')} vs ${engine.join('.')}`);
});

test('activation is lazy: no "*" activation event', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { activationEvents: string[] };
  assert.ok(!pkg.activationEvents.includes('*'));
  assert.ok(pkg.activationEvents.includes('onView:agentSeer.specs'));
});

test('in Restricted Mode every setting that names a folder, a file, an endpoint or a model is the user’s only', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations?: string[] } };
    contributes: { configuration: { properties: Record<string, { type: string }> } };
  };
  const sensitive = Object.entries(pkg.contributes.configuration.properties)
    .filter(([name, p]) => p.type === 'string' && /(folder|url|model|command|path|file)$/i.test(name))
    .map(([name]) => name)
    .sort();
  assert.ok(sensitive.length >= 7, sensitive.join(', '));
  assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  assert.deepEqual([...(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations ?? [])].sort(), sensitive);
});

test('the cycle finder sees folder and file cycles through every import form', () => {
  const graph = new Map([
    ['a/x.ts', new Set(['b/y.ts'])],
    ['b/y.ts', new Set(['c.ts'])],
    ['c.ts', new Set(['a/z.ts'])],
    ['a/z.ts', new Set<string>()],
    ['d/w.ts', new Set(['a/x.ts'])],
  ]);
  assert.deepEqual(cycles(graph), []);
  assert.deepEqual(cycles(folderGraph(graph)), ['a → b → c.ts → a (3 in the cycle: a, b, c.ts)']);
  // The real parser: a type-only import and a re-export are edges too.
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-graph-'));
  try {
    mkdirSync(join(dir, 'p'));
    mkdirSync(join(dir, 'q'));
    writeFileSync(join(dir, 'p', 'one.ts'), "import type { T } from '../q/two';\nexport const one = 1;\n");
    writeFileSync(join(dir, 'q', 'two.ts'), "export { one } from '../p/one';\nexport type T = number;\n");
    writeFileSync(join(dir, 'q', 'index.ts'), "export * from './two';\n");
    const files = fileGraph(dir);
    assert.deepEqual([...(files.get('q/index.ts') ?? [])], ['q/two.ts']);
    assert.deepEqual(cycles(files), ['p/one.ts → q/two.ts → p/one.ts (2 in the cycle: p/one.ts, q/two.ts)']);
    assert.deepEqual(cycles(folderGraph(files)), ['p → q → p (2 in the cycle: p, q)']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('src/core has no import cycle between its folders, nor between its files', () => {
  const files = fileGraph(join(repoRoot, 'src', 'core'));
  assert.ok(files.size > 50, 'core sources found');
  assert.ok(
    [...files.values()].some((targets) => targets.size > 0),
    'imports found',
  );
  assert.deepEqual(cycles(folderGraph(files)), [], 'folder-level cycles under src/core');
  assert.deepEqual(cycles(files), [], 'file-level cycles under src/core');
});

test("every source path CONTRIBUTING's layer map and table name exists", () => {
  const text = readFileSync(join(repoRoot, 'CONTRIBUTING.md'), 'utf8');
  const paths = [...text.matchAll(/`((?:src|test|media|scripts|prompts)\/[^`*<\s]+)`/g)].map((m) => m[1] as string);
  assert.ok(paths.length > 20, 'paths found');
  const missing = paths.filter((p) => {
    try {
      statSync(join(repoRoot, p));
      return false;
    } catch {
      return true;
    }
  });
  assert.deepEqual(missing, []);
});
