/**
 * The README's install step puts `agent-seer` on PATH: `npm link` from the clone, into a temporary
 * global prefix (npm_config_prefix), then the command found through PATH, run from another folder.
 * The package is private, so a link (or a tarball) is the only way to install it; the README says
 * so. `npm ci && npm run build`, the step's first line, is what the suite already ran: dist/ is
 * built before the unit tests (built here when missing).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { repoRoot } from '../fixturePaths';

const prefix = mkdtempSync(join(tmpdir(), 'agent-seer-prefix-'));
const elsewhere = mkdtempSync(join(tmpdir(), 'agent-seer-cwd-'));
after(() => [prefix, elsewhere].forEach((d) => rmSync(d, { recursive: true, force: true })));

/** npm as the suite was started with it (`npm test` sets npm_execpath), else the one on PATH. */
function npm(args: string[], options: SpawnSyncOptions): ReturnType<typeof spawnSync> {
  const cli = process.env.npm_execpath;
  return cli && /\.[cm]?js$/.test(cli) ? spawnSync(process.execPath, [cli, ...args], options) : spawnSync('npm', args, options);
}

/** The README's install block: the fenced block holding `npm link`. */
function installBlock(): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => /^npm link\b/m.test(b));
  assert.ok(block, 'the README has a sh block with npm link');
  return block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
}

test(
  "the README's install step (npm link) puts agent-seer on PATH: --version and --help work from another folder",
  { skip: process.platform === 'win32' && 'npm links a .cmd shim on Windows' },
  () => {
    const steps = installBlock();
    assert.ok(steps.includes('npm ci && npm run build'), `the install block builds first: ${steps.join(' | ')}`);
    assert.ok(steps.includes('npm link'), 'the install block links');
    if (!existsSync(join(repoRoot, 'dist', 'cli.js'))) execFileSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });

    const env = {
      ...process.env,
      npm_config_prefix: prefix,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    const linked = npm(['link'], { cwd: repoRoot, env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(linked.status, 0, `npm link failed:\n${String(linked.stderr)}`);

    const bin = join(prefix, 'bin', 'agent-seer');
    assert.equal(realpathSync(bin), realpathSync(join(repoRoot, 'dist', 'cli.js')), 'the command is the clone’s dist/cli.js');
    // Found through PATH alone (the prefix's bin and node's folder, for the `#!/usr/bin/env node` line), from a folder that is not the clone.
    const onPath = {
      cwd: elsewhere,
      env: { ...process.env, PATH: [join(prefix, 'bin'), dirname(process.execPath)].join(delimiter) },
      encoding: 'utf8' as const,
    };
    const version = spawnSync('agent-seer', ['--version'], { ...onPath, timeout: 30_000 });
    assert.equal(version.status, 0, String(version.stderr));
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    assert.equal(version.stdout.trim(), pkg.version);
    const help = spawnSync('agent-seer', ['--help'], { ...onPath, timeout: 30_000 });
    assert.equal(help.status, 0, String(help.stderr));
    for (const command of ['inspect', 'snapshot', 'generate', 'judge', 'report', 'run']) assert.match(help.stdout, new RegExp(`agent-seer ${command} `));
  },
);
