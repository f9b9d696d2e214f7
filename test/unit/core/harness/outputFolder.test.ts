/**
 * Writing a harness only where it is safe: a folder that is not a harness (or is another spec's)
 * is refused, a run removes only the records earlier runs of this folder listed, and one run at
 * a time holds a folder (generation and judging alike).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HarnessManifest } from '../../../../src/core/harness/format';
import { LOCK_FILE } from '../../../../src/core/harness/layout';
import { FolderLockedError, lockFolder } from '../../../../src/core/harness/lock';
import { readHarness } from '../../../../src/core/harness/store';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { cli } from '../../cliRunner';
import { specsDir } from '../../fixturePaths';

const slack = join(specsDir, 'slack.json');
const git = join(specsDir, 'git-official.json');

async function spec(file: string): Promise<Spec> {
  const load = loadSpecText(await readFile(file, 'utf8'), file);
  assert.ok(load.ok);
  return load.spec;
}

async function manifestOf(dir: string): Promise<HarnessManifest> {
  return HarnessManifest.parse(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')));
}

describe('output folder', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-out-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('refuses a folder that holds files and no manifest, and deletes nothing in it', async () => {
    const dir = join(root, 'someone');
    await mkdir(join(dir, 'records'), { recursive: true });
    await writeFile(join(dir, 'records', 'customer-data.json'), '{"keep":true}\n');
    const r = await cli(['generate', slack, '--out', dir, '--simple', '2', '--complex', '1']);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /is not a harness folder/);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    assert.deepEqual(await readdir(join(dir, 'records')), ['customer-data.json']);
    assert.equal(existsSync(join(dir, 'manifest.json')), false);
    assert.equal(existsSync(join(dir, LOCK_FILE)), false, 'the lock is released');

    // --force writes there, and a complete run still leaves the file it did not write alone.
    const forced = await cli(['generate', slack, '--out', dir, '--simple', '2', '--complex', '1', '--force']);
    assert.equal(forced.code, 0, forced.err);
    assert.equal(await readFile(join(dir, 'records', 'customer-data.json'), 'utf8'), '{"keep":true}\n');
    const again = await cli(['generate', slack, '--out', dir, '--simple', '1', '--complex', '1']);
    assert.equal(again.code, 0, again.err);
    assert.ok(existsSync(join(dir, 'records', 'customer-data.json')), 'a regenerate does not remove unlisted files');
  });

  it('refuses a path that is a file', async () => {
    const file = join(root, 'a-file');
    await writeFile(file, 'x');
    const r = await cli(['generate', slack, '--out', file]);
    assert.equal(r.code, 2);
    assert.match(r.err, /is not a folder/);
    assert.equal(await readFile(file, 'utf8'), 'x');
  });

  it("refuses another spec's harness unless forced; forced, it replaces that harness's records only", async () => {
    const dir = join(root, 'shared');
    assert.equal((await cli(['generate', git, '--out', dir, '--simple', '2', '--complex', '1'])).code, 0);
    const gitIds = (await manifestOf(dir)).recordIds;
    await writeFile(join(dir, 'records', 'notes.json'), '{}\n');
    const r = await cli(['generate', slack, '--out', dir]);
    assert.equal(r.code, 2);
    assert.match(r.err, /holds the harness of "mcp-git"/);
    assert.deepEqual((await manifestOf(dir)).recordIds, gitIds, 'untouched');

    assert.equal((await cli(['generate', slack, '--out', dir, '--simple', '2', '--complex', '1', '--force'])).code, 0);
    const names = await readdir(join(dir, 'records'));
    const m = await manifestOf(dir);
    assert.equal(m.spec.name, (await spec(slack)).name);
    assert.deepEqual(names.sort(), [...m.recordIds.map((id) => `${id}.json`), 'notes.json'].sort(), 'old records gone, the unlisted file kept');
    assert.equal(m.earlierRecordIds, undefined);
  });

  it('carries an unfinished run’s inheritance forward: records of a run before a cancelled one go when a later run completes', async () => {
    const dir = join(root, 'resume');
    const s = await spec(slack);
    const first = await runPipeline({ spec: s, provider: 'offline', outDir: dir, simple: 3, complex: 2, seed: 1 });
    assert.equal(first.status, 'complete');
    const firstIds = first.manifest.recordIds;
    // A second run with another seed, cancelled at once: nothing of it replaced run 1's records.
    const abort = new AbortController();
    abort.abort();
    const cancelled = await runPipeline({ spec: s, provider: 'offline', outDir: dir, simple: 3, complex: 2, seed: 2, signal: abort.signal });
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual([...(cancelled.manifest.earlierRecordIds ?? [])].sort(), [...firstIds].sort(), 'run 1 records listed as earlier output');
    const third = await runPipeline({ spec: s, provider: 'offline', outDir: dir, simple: 3, complex: 2, seed: 3 });
    assert.equal(third.status, 'complete');
    const read = await readHarness(dir);
    assert.deepEqual(read.records.map((r) => r.id).sort(), [...third.manifest.recordIds].sort(), 'exactly the last run’s records');
    assert.equal(third.removedStale, firstIds.filter((id) => !third.manifest.recordIds.includes(id)).length);
  });

  it('lets one run at a time write a folder: a second concurrent run is refused, the first loses nothing', async () => {
    const dir = join(root, 'busy');
    const s = await spec(git);
    const results = await Promise.allSettled([
      runPipeline({ spec: s, provider: 'offline', outDir: dir, simple: 20, complex: 20 }),
      runPipeline({ spec: s, provider: 'offline', outDir: dir, simple: 20, complex: 20, seed: 9 }),
    ]);
    const done = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(done.length, 1);
    assert.equal(refused.length, 1);
    assert.ok(refused[0]!.reason instanceof FolderLockedError, String(refused[0]!.reason));
    assert.match((refused[0]!.reason as Error).message, /in use by another generate run \(pid \d+/);
    const read = await readHarness(dir);
    const m = await manifestOf(dir);
    assert.deepEqual(read.problems, []);
    assert.deepEqual(read.records.map((r) => r.id).sort(), [...m.recordIds].sort());
    assert.equal(existsSync(join(dir, LOCK_FILE)), false);
  });

  it('judge and generate exclude each other; the CLI says who holds the folder (exit 2)', async () => {
    const dir = join(root, 'judged');
    assert.equal((await cli(['generate', slack, '--out', dir, '--simple', '1', '--complex', '1'])).code, 0);
    const lock = await lockFolder(dir, 'generate');
    try {
      const r = await cli(['judge', dir]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /in use by another generate run/);
      const g = await cli(['generate', slack, '--out', dir]);
      assert.equal(g.code, 2);
    } finally {
      await lock.release();
    }
    assert.equal((await cli(['judge', dir])).code, 0);
  });

  it('takes over a lock whose holder died, and never one whose holder lives', async () => {
    const dir = join(root, 'stale');
    await mkdir(dir, { recursive: true });
    // A process that has exited: its pid is free (reuse within the test is vanishingly unlikely).
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.once('exit', r));
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: dead.pid, hostname: hostname(), purpose: 'generate', since: 'then' }));
    const lock = await lockFolder(dir, 'judge');
    assert.equal(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid, process.pid);
    await lock.release();
    assert.equal(existsSync(join(dir, LOCK_FILE)), false);

    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: live.pid, hostname: hostname(), purpose: 'generate', since: 'now' }));
      await assert.rejects(lockFolder(dir, 'judge'), FolderLockedError);
      // Another machine's lock (a shared folder) is never assumed stale.
      await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: dead.pid, hostname: `${hostname()}-elsewhere`, purpose: 'generate', since: 'now' }));
      await assert.rejects(lockFolder(dir, 'judge'), /on .*-elsewhere/);
    } finally {
      live.kill('SIGKILL');
    }
  });
});
