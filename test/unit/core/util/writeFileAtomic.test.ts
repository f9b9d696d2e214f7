/**
 * A failed write names its file. The system's message for a failed `write` has no path
 * ("ENOSPC: no space left on device, write"), so a full disk was reported as that line alone.
 * A real write failure without root or a full disk: a child process under `ulimit -f` (file size
 * limit) gets EFBIG from `write`, the same failure at the same step as ENOSPC (SIGXFSZ, which
 * the limit also raises, is ignored by a preloaded handler, as a process that can survive it
 * would).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { repoRoot, specsDir } from '../../fixturePaths';
import { cli } from '../../cliRunner';

const dir = mkdtempSync(join(tmpdir(), 'agent-seer-write-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const preload = join(dir, 'ignore-xfsz.js');
writeFileSync(preload, "process.on('SIGXFSZ', () => {});\n");

/** Runs node with a file size limit of a few KB. */
function limited(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('sh', ['-c', 'ulimit -f 4 && exec "$@"', 'sh', process.execPath, '--require', preload, ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 60_000,
  });
}

test('writeFileAtomic: a write that fails half way says which file, keeps the code, leaves no temp file', () => {
  const target = join(dir, 'out', 'big.json');
  const mod = join(repoRoot, 'out', 'src', 'core', 'util', 'writeFileAtomic.js');
  const script = `require('node:fs').mkdirSync(${JSON.stringify(join(dir, 'out'))}, { recursive: true });
require(${JSON.stringify(mod)}).writeFileAtomic(${JSON.stringify(target)}, 'x'.repeat(200000)).then(
  () => console.log('{"ok":true}'),
  (e) => console.log(JSON.stringify({ message: e.message, code: e.code })));`;
  const r = limited(['-e', script]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { ok?: true; message?: string; code?: string };
  assert.equal(out.code, 'EFBIG', r.stdout);
  assert.equal(out.message, `cannot write ${target}: EFBIG: file too large, write`);
  assert.deepEqual(readdirSync(join(dir, 'out')), [], 'the temp file is removed');
});

test('the CLI: a report that cannot be written is one line naming the file, exit 1', async () => {
  const g = await cli(['generate', join(specsDir, 'filesystem.json'), '--out', join(dir, 'h')], dir, {
    PATH: process.env.PATH,
  });
  assert.equal(g.code, 0, g.err);
  const r = limited([join(repoRoot, 'dist', 'cli.js'), 'report', 'h', '--out', 'report.md', '--resamples', '100']);
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.at(-1), `agent-seer: cannot write ${join(dir, 'report.md')}: EFBIG: file too large, write`);
  assert.ok(!r.stderr.includes('    at '), 'no stack');
});
