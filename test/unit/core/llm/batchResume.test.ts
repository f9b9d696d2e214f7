/**
 * Batch mode survives a kill: a child process (the compiled `batchChild.js`, on the built engine)
 * submits a round and is SIGKILLed once the journal names its job; a second process resumes and
 * collects it, and the fake OpenAI batch server sees each item exactly once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readBatchJournal } from '../../../../src/core/llm';
import { startFakeOpenAIBatch } from '../../../fakes/fakeOpenAIBatch';
import type { FakeRequest } from '../../../fakes/fakeLlmServer';
import { BATCH_TEST_KEY } from './batchChild';

const child = join(__dirname, 'batchChild.js');

function run(
  baseUrl: string,
  dir: string,
  n: number,
): { exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>; kill: () => void } {
  const proc = spawn(process.execPath, [child, '--batch-child', baseUrl, dir, String(n)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    proc.on('error', reject);
    proc.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { exited, kill: () => proc.kill('SIGKILL') };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('batch mode across a kill', () => {
  it('a process killed after submitting leaves a journal a second process resumes from: each item is answered once', async () => {
    const fake = await startFakeOpenAIBatch({ apiKey: BATCH_TEST_KEY, pollsPerState: 'manual' });
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-batch-kill-'));
    try {
      fake.respondWith((r: FakeRequest) => ({ json: { n: Number(/item (\d+)/.exec(r.lastUserText)?.[1]) } }));
      const n = 12;
      const first = run(fake.url, dir, n);
      await until('the journal to name the job', async () => (await readBatchJournal(dir)).jobs.some((j) => j.job !== undefined));
      first.kill();
      const killed = await first.exited;
      assert.equal(killed.signal, 'SIGKILL');
      assert.equal(fake.batch.jobs.length, 1);
      assert.equal(fake.batch.batchItems, 0, 'nothing answered before the kill');

      const second = run(fake.url, dir, n);
      // The job runs on at the provider while the second process polls it.
      await until('the second process to poll', () => (fake.batch.jobs[0]?.polls ?? 0) > 0);
      await fake.batch.finishAll();
      const resumed = await second.exited;
      assert.equal(resumed.code, 0, resumed.stderr);
      const out = JSON.parse(resumed.stdout) as { texts: string[]; summary: { jobs: { submitted: number; resumed: number } } };
      assert.deepEqual(
        out.texts.map((t) => (JSON.parse(t) as { n: number }).n),
        Array.from({ length: n }, (_, i) => i),
      );
      assert.deepEqual(out.summary.jobs, { submitted: 0, resumed: 1, byState: { succeeded: 1 } });
      assert.equal(fake.batch.jobs.length, 1, 'no second job');
      const items = fake.requests.filter((r) => r.viaBatch !== undefined);
      assert.equal(items.length, n);
      assert.equal(new Set(items.map((r) => r.contentHash)).size, n, 'each item exactly once');
      assert.equal(fake.batch.syncCalls, 0);
    } finally {
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
