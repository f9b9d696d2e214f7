#!/usr/bin/env node
// Runs the same integration suites in a desktop VS Code downloaded by @vscode/test-electron —
// for machines with internet (e.g. GitHub Actions). On machines that reach only the npm
// registry, use `npm run test:integration` (code-server + Chromium) instead: the suites' run()
// contract is the same (test/integration/runSuite.ts), and so is the results file.
//
//   npm run build && npm run compile-tests && node scripts/test-electron.mjs [suite ...]
//
// Needs a display on Linux (e.g. `xvfb-run -a node scripts/test-electron.mjs`).
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from '@vscode/test-electron';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Keep in step with SUITES in scripts/test-integration.mjs (not the vsix suite: it installs the
// .vsix with code-server's --install-extension, which this runner has no counterpart for).
const SUITES = [
  { name: 'main', workspace: 'basic', suite: 'out/test/integration/suites/main/index.js', trust: false, extensions: ['fake-lm'] },
  { name: 'trust', workspace: 'untrusted', suite: 'out/test/integration/suites/trust/index.js', trust: true },
];

const wanted = process.argv.slice(2);
const suites = wanted.length ? SUITES.filter((s) => wanted.includes(s.name)) : SUITES;
let passed = 0;
let failed = 0;
for (const spec of suites) {
  const runDir = mkdtempSync(join(tmpdir(), `agent-seer-electron-${spec.name}-`));
  const workspace = join(runDir, spec.workspace);
  cpSync(join(repoRoot, 'test', 'integration', 'workspaces', spec.workspace), workspace, { recursive: true });
  const resultsFile = join(runDir, 'results.json');
  try {
    await runTests({
      version: process.env.VSCODE_TEST_VERSION ?? 'stable',
      // Test-only helper extensions (e.g. the fake language model) load as development extensions
      // beside ours; desktop VS Code takes a list here (code-server does not: see test-integration.mjs).
      extensionDevelopmentPath: [repoRoot, ...(spec.extensions ?? []).map((e) => join(repoRoot, 'test', 'integration', 'extensions', e))],
      extensionTestsPath: join(repoRoot, spec.suite),
      extensionTestsEnv: {
        AGENT_SEER_TEST_RESULTS: resultsFile,
        AGENT_SEER_TEST_SUITE: spec.name,
        AGENT_SEER_SHARED: process.env.AGENT_SEER_SHARED ?? resolve(repoRoot, '..', 'shared'),
      },
      launchArgs: [workspace, '--disable-extensions', '--user-data-dir', join(runDir, 'user-data'), ...(spec.trust ? [] : ['--disable-workspace-trust'])],
    });
  } catch (err) {
    console.log(`[electron] suite ${spec.name}: ${err?.message ?? err}`);
  }
  if (!existsSync(resultsFile)) {
    console.log(`  FAIL ${spec.name} › no results file (${resultsFile})`);
    failed += 1;
    continue;
  }
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  for (const t of results.tests) {
    console.log(`  ${t.state === 'passed' ? 'ok  ' : t.state === 'pending' ? 'skip' : 'FAIL'} ${spec.name} › ${t.title}`);
    if (t.error)
      console.log(
        t.error
          .split('\n')
          .map((l) => `         ${l}`)
          .join('\n'),
      );
  }
  passed += results.passed;
  failed += results.failed;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
