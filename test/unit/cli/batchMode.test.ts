/**
 * Batch mode end to end, through the CLI and the real clients against fake batch engines on
 * 127.0.0.1 (issue 13's Done-when): on the 64-tool Illustrator fixture, `generate --batch` and
 * `judge --batch` make no synchronous model call, write the harness a synchronous run writes from
 * the same replies, ride out item errors, stop with exit 4 under `--no-wait` and resume, and
 * `status` shows the jobs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { loadSpecText } from '../../../src/core/spec/snapshot';
import { startFakeOpenAIBatch, type FakeOpenAIBatchServer } from '../../fakes/fakeOpenAIBatch';
import { startFakeGeminiBatch } from '../../fakes/fakeGeminiBatch';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../../fakes/fakeLlmServer';
import { cli } from '../cliRunner';
import { repoRoot, specsDir } from '../fixturePaths';
import { createResponder } from '../pipelineResponder';
import { schemaFreeModel, schemaOnlyModel } from '../../fakes/schemaOnly';

const KEY = 'batch-mode-test-key';
const SPEC = join(specsDir, 'illustrator-ie3jp-1.2.12.json');

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-seer-batch-cli-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

type Client = 'openai' | 'gemini';

/**
 * A fake batch engine of `client`: generation answered like the unit tests' cooperative model, the
 * judge by the free-choice schema model (any reply its schema allows, chosen by the request's
 * content, so a synchronous and a batch run get the same replies); optional item faults.
 */
async function fakeEngine(client: Client, options: { itemErrorShare?: number; judge?: boolean } = {}): Promise<FakeLlmServer> {
  const spec = loadSpecText(await readFile(SPEC, 'utf8'), SPEC);
  assert.ok(spec.ok);
  const responder = createResponder({ spec: spec.spec });
  const free = schemaFreeModel(7);
  const answer = (req: FakeRequest): FakeReply | Promise<FakeReply> => (options.judge ? free(req) : responder.respond(req));
  const fake: FakeLlmServer =
    client === 'openai'
      ? await startFakeOpenAIBatch({ apiKey: KEY, pollsPerState: 1 })
      : await startFakeGeminiBatch({ apiKey: KEY, pendingPolls: 1, runningPolls: 1 });
  cleanups.push(() => fake.close());
  // An item's first answer fails for a seeded share of items (by content): a 500 or a 429 inside
  // the job, as a provider reports them; its retry, in a later job, is answered.
  const failedOnce = new Set<string>();
  fake.respondWith((req: FakeRequest): FakeReply | Promise<FakeReply> => {
    const share = options.itemErrorShare ?? 0;
    const key = req.contentHash ?? '';
    if (share > 0 && req.viaBatch && !failedOnce.has(key) && parseInt(key.slice(0, 8), 16) / 0xffffffff < share) {
      failedOnce.add(key);
      return { status: parseInt(key.slice(8, 10), 16) % 2 ? 500 : 429, message: 'fake item fault' };
    }
    return answer(req);
  });
  return fake;
}

function env(client: Client, fake: FakeLlmServer): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, AGENT_SEER_BATCH_POLL_MS: '20' };
  delete base.GEMINI_API_KEY;
  delete base.GOOGLE_API_KEY;
  delete base.OPENAI_API_KEY;
  return client === 'openai' ? { ...base, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.url } : { ...base, GEMINI_API_KEY: KEY, GEMINI_BASE_URL: fake.url };
}

const MODEL: Record<Client, string> = { openai: 'gpt-4o-mini', gemini: 'gemini-2.5-flash-lite' };

function generateArgs(client: Client, out: string, extra: string[] = []): string[] {
  return ['generate', SPEC, '--provider', client, '--model', MODEL[client], '--out', out, '--simple', '4', '--complex', '4', ...extra];
}

/** The records of a harness without what differs between runs by design (times, usage, cache keys). */
async function recordsOf(dir: string): Promise<Record<string, unknown>> {
  const files = (await readdir(join(dir, 'records'))).filter((f) => f.endsWith('.json')).sort();
  const out: Record<string, unknown> = {};
  for (const f of files) {
    const r = JSON.parse(await readFile(join(dir, 'records', f), 'utf8')) as Record<string, unknown>;
    delete r.provenance;
    out[f] = r;
  }
  return out;
}

/** Model calls the fake answered synchronously (not as items of a batch job). */
const syncCalls = (fake: FakeLlmServer): number => fake.requests.filter((r) => r.viaBatch === undefined && r.model !== undefined).length;
const batchItems = (fake: FakeLlmServer): FakeRequest[] => fake.requests.filter((r) => r.viaBatch !== undefined);

for (const client of ['openai', 'gemini'] as const) {
  describe(`batch mode through the ${client} client (Illustrator, 64 tools)`, () => {
    it('generate --batch: no synchronous call, the harness a synchronous run writes from the same replies; judge --batch the same', async () => {
      const root = await tempDir();
      const sync = await fakeEngine(client);
      const syncOut = join(root, 'sync');
      const s = await cli(generateArgs(client, syncOut), root, env(client, sync));
      assert.equal(s.code, 0, s.err);

      const batch = await fakeEngine(client);
      const batchOut = join(root, 'batch');
      const b = await cli(generateArgs(client, batchOut, ['--batch']), root, env(client, batch));
      assert.equal(b.code, 0, b.err);
      assert.equal(syncCalls(batch), 0, 'no synchronous generation call in batch mode');
      assert.ok(batchItems(batch).length > 0);
      assert.match(b.out, /batch: \d+ jobs? submitted/);
      assert.deepEqual(await recordsOf(batchOut), await recordsOf(syncOut));
      // The same tokens, billed at the batch price: half the synchronous run's cost.
      const costOf = async (dir: string) =>
        (JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { cost: { actual: { usd: number; mode: string } } }).cost.actual;
      const [syncCost, batchCost] = [await costOf(syncOut), await costOf(batchOut)];
      assert.equal(syncCost.mode, 'sync');
      assert.equal(batchCost.mode, 'batch');
      assert.ok(Math.abs(batchCost.usd - syncCost.usd / 2) < 1e-5, `${batchCost.usd} vs ${syncCost.usd}`);
      assert.match(b.out, /cost: \$[\d.]+ \(batch; /);
      // An unchanged re-run: every reply is cached, so no call and no job.
      const seen = batch.requests.length;
      const jobs = (await journaledJobs(batchOut)).length;
      const again = await cli(generateArgs(client, batchOut, ['--batch']), root, env(client, batch));
      assert.equal(again.code, 0, again.err);
      assert.equal(batch.requests.length, seen, 'the re-run asked the provider nothing');
      assert.equal((await journaledJobs(batchOut)).length, jobs, 'the re-run submitted no job');

      const judgeSync = await cli(['judge', syncOut, '--judge', `${client}:${MODEL[client]}`], root, env(client, await fakeEngine(client, { judge: true })));
      assert.equal(judgeSync.code, 0, judgeSync.err);
      const judged = await fakeEngine(client, { judge: true });
      const j = await cli(['judge', batchOut, '--judge', `${client}:${MODEL[client]}`, '--batch'], root, env(client, judged));
      assert.equal(j.code, 0, j.err);
      assert.equal(syncCalls(judged), 0, 'no synchronous judge call in batch mode');
      const judgments = async (dir: string) =>
        Object.fromEntries(
          Object.entries(await recordsOf(dir)).map(([f, r]) => {
            const all = (r as { judgments?: Record<string, { judgedAt?: unknown; usage?: unknown }> }).judgments ?? {};
            return [f, Object.fromEntries(Object.entries(all).map(([k, v]) => [k, { ...v, judgedAt: undefined, usage: undefined }]))];
          }),
        );
      assert.deepEqual(await judgments(batchOut), await judgments(syncOut));
    });

    it('10% item errors inside jobs are retried in follow-up jobs: complete, each failure counted', async () => {
      const root = await tempDir();
      const fake = await fakeEngine(client, { itemErrorShare: 0.1 });
      const out = join(root, 'h');
      const r = await cli([...generateArgs(client, out, ['--batch']), '--json'], root, env(client, fake));
      assert.equal(r.code, 0, r.err);
      const summary = JSON.parse(r.out) as { status: string; batch: { jobs: { submitted: number }; items: { failed: number } } };
      assert.equal(summary.status, 'complete');
      assert.ok(summary.batch.items.failed > 0, 'the injected item errors are counted');
      assert.ok(summary.batch.jobs.submitted > 1, 'failed items went into follow-up jobs');
      assert.equal(syncCalls(fake), 0);
    });

    it('--no-wait exits 4 with the jobs journaled; status shows them; re-runs collect them and never submit an item twice', async () => {
      const root = await tempDir();
      const fake = await fakeEngine(client);
      const out = join(root, 'h');
      const e = env(client, fake);
      const first = await cli(generateArgs(client, out, ['--batch', '--no-wait']), root, e);
      assert.equal(first.code, 4, first.err);
      assert.match(first.out, /Pending: /);
      const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as { status: string };
      assert.equal(manifest.status, 'pending');

      const status = await cli(['status', out, '--json'], root, e);
      const jobs = (JSON.parse(status.out) as { jobs: { state: string; items: number }[] }).jobs;
      assert.ok(jobs.length > 0);
      assert.ok(jobs.every((j) => j.items > 0));

      let code = 4;
      for (let round = 0; round < 12 && code === 4; round++) code = (await cli(generateArgs(client, out, ['--batch', '--no-wait']), root, e)).code;
      assert.equal(code, 0);
      const items = batchItems(fake).map((r) => r.contentHash);
      assert.equal(new Set(items).size, items.length, 'no item was submitted twice');
      assert.equal(syncCalls(fake), 0);
      const done = await cli(['status', out], root, e);
      assert.equal(done.code, 0, done.out);
    });
  });
}

/** The journal entries of a harness's batch folder (one folder per provider and model). */
async function journaledJobs(harness: string): Promise<{ job?: string; items: string[] }[]> {
  const root = join(harness, '.cache', 'batch');
  const jobs: { job?: string; items: string[] }[] = [];
  for (const engine of await readdir(root).catch(() => [] as string[])) {
    const jobsDir = join(root, engine, 'jobs');
    for (const f of (await readdir(jobsDir).catch(() => [] as string[])).filter((x) => x.endsWith('.json')))
      jobs.push(JSON.parse(await readFile(join(jobsDir, f), 'utf8')) as { job?: string; items: string[] });
  }
  return jobs;
}

describe('batch mode survives a kill', () => {
  for (const client of ['openai', 'gemini'] as const) {
    it(`${client}: the CLI SIGKILLed after its job is journaled; the re-run collects it and submits no item twice`, async () => {
      const root = await tempDir();
      const fake = await fakeEngine(client);
      const out = join(root, 'h');
      // The first process polls only after a minute: it is killed long before, with its job running.
      const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...generateArgs(client, out, ['--batch'])], {
        cwd: root,
        env: { ...env(client, fake), AGENT_SEER_BATCH_POLL_MS: '60000' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      const deadline = Date.now() + 60_000;
      while (!(await journaledJobs(out)).some((j) => j.job !== undefined)) {
        assert.ok(Date.now() < deadline, 'the child journaled no job within a minute');
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      const before = batchItems(fake).length;
      assert.equal(before, 0, 'the fake answers items only when a job ends');

      const again = await cli(generateArgs(client, out, ['--batch']), root, env(client, fake));
      assert.equal(again.code, 0, again.err);
      assert.match(again.err, /batch: resumed /);
      const items = batchItems(fake).map((r) => r.contentHash);
      assert.equal(new Set(items).size, items.length, 'no item was answered twice');
      assert.equal(syncCalls(fake), 0);
    });
  }
});

describe('batch mode over a corpus', () => {
  it("two specs share the batch jobs: the first job holds both specs' interpretations; both harnesses are written", async () => {
    const root = await tempDir();
    const fake = await startFakeOpenAIBatch({ apiKey: KEY, pollsPerState: 1 });
    cleanups.push(() => fake.close());
    fake.respondWith(schemaOnlyModel);
    const specs = join(root, 'specs');
    await mkdir(specs);
    for (const f of ['filesystem.json', 'slack.json']) await copyFile(join(specsDir, f), join(specs, f));
    const out = join(root, 'evals');
    const r = await cli(
      ['generate', specs, '--provider', 'openai', '--model', MODEL.openai, '--out', out, '--simple', '2', '--complex', '2', '--batch'],
      root,
      env('openai', fake),
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(fake.batch.jobs[0]?.customIds.length, 14 + 8, 'one job for the first round of both specs (14 + 8 tools)');
    assert.equal(syncCalls(fake), 0);
    const harnesses = (await readdir(out)).filter((d) => !d.startsWith('.')).sort();
    assert.equal(harnesses.length, 2, harnesses.join(', '));
    const status = await cli(['status', out, '--json'], root, env('openai', fake));
    assert.equal(status.code, 0, status.out);
    assert.ok((JSON.parse(status.out) as { jobs: unknown[] }).jobs.length >= 3, 'the corpus journal lists its jobs');
  });
});

describe('batch options', () => {
  it('refuses --batch with the offline provider, and --no-wait without --batch', async () => {
    const root = await tempDir();
    const a = await cli(['generate', SPEC, '--batch', '--out', join(root, 'a')], root);
    assert.equal(a.code, 2);
    assert.match(a.err, /--batch needs a model/);
    const b = await cli(['generate', SPEC, '--no-wait', '--out', join(root, 'b')], root);
    assert.equal(b.code, 2);
    assert.match(b.err, /go with --batch/);
  });

  it('status on a folder without batch jobs says so and exits 0', async () => {
    const root = await tempDir();
    const r = await cli(['status', root], root);
    assert.equal(r.code, 0);
    assert.match(r.out, /No batch jobs recorded/);
  });
});

export type { FakeOpenAIBatchServer };
