/**
 * Batch accounting through the real CLI and the real Gemini client against the shared schema-only
 * fake (`../shared/tools/chaos-llm`, its batch engine) on 127.0.0.1 (issue 21): the calls, tokens
 * and cost a run reports are what the fake says it answered, a discarded item asked again with
 * `--retry-discarded` is a new sample with a new reply, the advice after a run says what a re-run
 * does, and `--no-wait` runs add up to what the fake answered.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { BUILT_IN, costOf, priceOf } from '../../../src/core/llm/pricing';
import { cli } from '../cliRunner';
import { sharedDir, specsDir } from '../fixturePaths';

const MODEL = 'gemini-2.5-flash-lite';
/** A spec whose run re-asks some prompts as new samples (a discarded step asked again): before issue 21 those were answered from the journal and counted as calls. */
const NOTION = join(specsDir, 'notion.json');
/**
 * Half the fake's replies are malformed JSON (cut short, fenced or with a trailing comma), so some
 * items stay broken through their three tries and are discarded (a content fault, not a transport
 * one): what --retry-discarded is for. (notion.json used to discard on its own, for UUIDs the fake
 * never wrote, until the UUID repair; schema violations are no use here: a reply whose one required
 * property was dropped is `{}` however often it is asked again.)
 */
const DISCARDING = ['--p-malformed-json', '0.5'];
const SLACK = join(specsDir, 'slack.json');

interface Chaos {
  url: string;
  child: ChildProcess;
}

/** chaos-llm on a free port of 127.0.0.1 with `flags`. */
async function startChaos(spec: string, flags: string[]): Promise<Chaos> {
  const child = spawn(process.execPath, [join(sharedDir, 'tools', 'chaos-llm', 'server.mjs'), '--spec', spec, '--port', '0', '--seed', '1', ...flags], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`chaos-llm exited with ${code}`)));
  });
  return { url, child };
}

interface Stats {
  requests: { total: number };
  tokens: { prompt: number; candidates: number };
  batches: { by_state: Record<string, number> };
}

const stats = async (c: Chaos): Promise<Stats> => (await fetch(`${c.url}/__stats`)).json() as Promise<Stats>;
const reset = async (c: Chaos): Promise<void> => void (await fetch(`${c.url}/__reset`, { method: 'POST' })).body?.cancel();

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-seer-batch-accounting-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function env(c: Chaos): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, GEMINI_API_KEY: 'unused', GEMINI_BASE_URL: c.url, AGENT_SEER_BATCH_POLL_MS: '20' };
  delete e.GOOGLE_API_KEY;
  delete e.GITHUB_ACTIONS;
  return e;
}

const generate = (spec: string, out: string, extra: string[] = []): string[] => [
  'generate',
  spec,
  '--provider',
  'gemini',
  '--model',
  MODEL,
  '--out',
  out,
  '--batch',
  ...extra,
];

interface Summary {
  status: string;
  llm: { calls: number; inputTokens: number; outputTokens: number };
  items: { failed: number; discarded: number };
  cost: { actual: { usd: number; mode: string } };
  batch: { items: { submitted: number; succeeded: number; failed: number; fromEarlierJobs: number; fromJournal: number } };
}

/** Each batch item a harness's journal holds: its request (as JSON) and its reply text. */
async function journalItems(harness: string): Promise<{ id: string; request: string; reply?: string }[]> {
  const root = join(harness, '.cache', 'batch');
  const items: { id: string; request: string; reply?: string }[] = [];
  for (const engine of await readdir(root)) {
    const jobs = join(root, engine, 'jobs');
    for (const f of (await readdir(jobs)).filter((x) => x.endsWith('.requests.jsonl'))) {
      const lines = (await readFile(join(jobs, f), 'utf8')).split('\n').filter(Boolean);
      const results = await readFile(join(jobs, f.replace('.requests.jsonl', '.results.jsonl')), 'utf8').catch(() => '');
      const replies = new Map(
        results
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { id: string; reply?: { text: string } })
          .map((r) => [r.id, r.reply?.text] as const),
      );
      for (const l of lines) {
        const { id, request } = JSON.parse(l) as { id: string; request: { sample?: string } };
        const { sample: _sample, ...body } = request;
        items.push({ id, request: JSON.stringify(body), reply: replies.get(id) });
      }
    }
  }
  return items;
}

describe('batch accounting against chaos-llm (notion.json)', () => {
  let chaos: Chaos;
  before(async () => {
    // --vary-repeats: an identical request asked again gets a new reply, as from a real model at temperature 0.7.
    chaos = await startChaos(NOTION, ['--batch-delay-ms', '0', '--vary-repeats', ...DISCARDING]);
  });
  after(() => chaos.child.kill());

  it("a run's calls, tokens and cost are what the fake answered; --retry-discarded asks discarded items again as new samples with new replies", async () => {
    const root = await tempDir();
    const out = join(root, 'h');
    await reset(chaos);
    const first = await cli([...generate(NOTION, out), '--json'], root, env(chaos));
    const s1 = JSON.parse(first.out) as Summary;
    const fake1 = await stats(chaos);
    assert.ok(fake1.requests.total > 0);
    assert.equal(s1.llm.calls, fake1.requests.total, 'calls = the items the fake answered');
    assert.equal(s1.llm.inputTokens, fake1.tokens.prompt);
    assert.equal(s1.llm.outputTokens, fake1.tokens.candidates);
    assert.equal(s1.batch.items.succeeded, fake1.requests.total);
    assert.equal(s1.batch.items.fromEarlierJobs, 0, 'a fresh run collects nothing from earlier runs');
    assert.equal(s1.batch.items.fromJournal, 0);
    const price = priceOf(BUILT_IN.table, MODEL, 'gemini');
    const expected = costOf({ inputTokens: fake1.tokens.prompt, outputTokens: fake1.tokens.candidates }, price, 'batch');
    assert.equal(s1.cost.actual.mode, 'batch');
    assert.ok(expected !== null && Math.abs(s1.cost.actual.usd - expected) < 1e-6, `${s1.cost.actual.usd} vs ${expected}`);
    // Items are lost to discards (replies malformed three times), none to transport faults.
    assert.equal(s1.items.failed, 0);
    assert.ok(s1.items.discarded > 0, 'the fixture discards some items');

    // The same command again: every item is cached (discards too), so no call, and the advice says so.
    await reset(chaos);
    const plain = await cli(generate(NOTION, out), root, env(chaos));
    assert.equal((await stats(chaos)).requests.total, 0);
    assert.match(plain.out, /LLM: 0 calls/);
    assert.match(plain.out, /Re-running the same command makes no call: the \d+ items? discarded (is|are) cached as discarded\. --retry-discarded asks for/);
    assert.doesNotMatch(plain.out, /retry the failed items|from earlier runs/);

    // --retry-discarded: the discarded items are asked again, as new samples, with new replies.
    const before = await journalItems(out);
    await reset(chaos);
    const retried = await cli([...generate(NOTION, out, ['--retry-discarded']), '--json'], root, env(chaos));
    const s2 = JSON.parse(retried.out) as Summary;
    const fake2 = await stats(chaos);
    assert.ok(fake2.requests.total > 0, 'the discarded items were asked again');
    assert.equal(s2.llm.calls, fake2.requests.total);
    assert.equal(s2.llm.inputTokens, fake2.tokens.prompt);
    assert.equal(s2.batch.items.fromJournal, 0, 'no discarded reply was handed back from the journal');
    const earlier = new Map(before.map((i) => [i.request, i]));
    const beforeIds = new Set(before.map((i) => i.id));
    const resent = (await journalItems(out)).filter((i) => !beforeIds.has(i.id) && earlier.has(i.request));
    assert.ok(resent.length > 0, 'requests asked in the first run were sent again as new items');
    for (const i of resent) assert.notEqual(i.reply, earlier.get(i.request)!.reply, 'a new sample got a new reply');
  });
});

describe('batch accounting under faults against chaos-llm (slack.json)', () => {
  let chaos: Chaos;
  before(async () => {
    chaos = await startChaos(SLACK, [
      '--batch-delay-ms',
      '0',
      '--p-batch-item-error',
      '0.1',
      '--p-http-500',
      '0.05',
      '--p-batch-expire',
      '0.2',
      '--p-batch-fail',
      '0.1',
    ]);
  });
  after(() => chaos.child.kill());

  for (const retry of ['batch', 'sync'] as const) {
    it(`--batch-retry ${retry}: failed items, expired and failed jobs; the calls are the items the fake ran (an item a job never ran is none)`, async () => {
      const root = await tempDir();
      await reset(chaos);
      const r = await cli([...generate(SLACK, join(root, 'h'), ['--batch-retry', retry]), '--json'], root, env(chaos));
      const s = JSON.parse(r.out) as Summary;
      const fake = await stats(chaos);
      assert.ok(s.batch.items.failed > 0, 'some items failed or were never run');
      assert.equal(s.llm.calls, fake.requests.total);
      assert.equal(s.llm.inputTokens, fake.tokens.prompt);
      assert.equal(s.llm.outputTokens, fake.tokens.candidates);
    });
  }
});

describe('--no-wait against chaos-llm (slack.json)', () => {
  let chaos: Chaos;
  before(async () => {
    chaos = await startChaos(SLACK, ['--batch-delay-ms', '300']);
  });
  after(() => chaos.child.kill());

  it('each invocation but the last submits the requests the answers allow; the calls of all of them add up to what the fake answered', async () => {
    const root = await tempDir();
    const out = join(root, 'h');
    await reset(chaos);
    const perRun: Summary[] = [];
    for (let n = 0; n < 30; n++) {
      const r = await cli([...generate(SLACK, out, ['--no-wait']), '--json'], root, env(chaos));
      perRun.push(JSON.parse(r.out) as Summary);
      if (r.code !== 4) break;
      // Every job has ended before the next invocation (a user re-running later).
      for (;;) {
        const b = (await stats(chaos)).batches.by_state;
        if (!b.BATCH_STATE_PENDING && !b.BATCH_STATE_RUNNING) break;
        await new Promise((res) => setTimeout(res, 50));
      }
    }
    const last = perRun[perRun.length - 1]!;
    assert.notEqual(last.status, 'pending', 'the runs finished');
    // Nothing is waited for within a run; each run but the last sends at least one job of new requests.
    for (const s of perRun.slice(0, -1)) assert.ok(s.batch.items.submitted > 0, 'no invocation only collects');
    assert.equal(last.batch.items.submitted, 0);
    const fake = await stats(chaos);
    const sum = (f: (s: Summary) => number): number => perRun.reduce((n, s) => n + f(s), 0);
    assert.equal(
      sum((s) => s.llm.calls),
      fake.requests.total,
      'the calls of all invocations = the items the fake answered',
    );
    assert.equal(
      sum((s) => s.llm.inputTokens),
      fake.tokens.prompt,
    );
    assert.equal(
      sum((s) => s.batch.items.submitted),
      fake.requests.total,
      'no item submitted twice',
    );
    assert.ok(sum((s) => s.batch.items.fromEarlierJobs) > 0, 'replies of jobs of earlier runs are said as such');
    assert.ok(perRun.length <= 8, `${perRun.length} invocations`);
  });
});
