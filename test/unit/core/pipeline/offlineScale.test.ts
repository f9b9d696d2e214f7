/**
 * Offline generation and the offline judge stay linear in the spec's size (issue 18: 4,000 tools
 * took 38 s, 20,000 never finished; a 100,000-value enum a minute). Guarded by counting work,
 * never by timing: regular expressions built to find the tools a description names, scans of
 * the spec's tool list, rankings of producers, hashes of the whole spec per judge run, and the
 * records an offline run hands out while it runs. Speed itself is measured in `bench/scale.ts`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { judgeHarness } from '../../../../src/core/judge/judgeHarness';
import { generateOffline, generateOfflineYielding, type OfflineEvent } from '../../../../src/core/pipeline/offline';
import { analyzeSpec } from '../../../../src/core/pipeline/offline/toolInfo';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import type { Spec, Tool } from '../../../../src/core/spec/model';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { summaryText } from '../../../../src/cli/generateSummary';
import { bigEnumSpec, scaleSpec } from '../../scaleSpec';

function specOf(snapshot: Record<string, unknown>): Spec {
  const load = loadSpecText(JSON.stringify(snapshot), 'scale.json');
  assert.ok(load.ok);
  return load.spec;
}

/** Runs `fn` counting `new RegExp(…)` (regular expression literals are not counted). */
function countingRegExps<T>(fn: () => T): { result: T; built: number } {
  const original = globalThis.RegExp;
  let built = 0;
  globalThis.RegExp = new Proxy(original, {
    construct(target, args: [string | RegExp, string?]) {
      built++;
      return Reflect.construct<[string | RegExp, string?], RegExp>(target, args);
    },
  });
  try {
    return { result: fn(), built };
  } finally {
    globalThis.RegExp = original;
  }
}

test('finding the tools a parameter description names builds regular expressions for candidates only, not for every tool × parameter', () => {
  // Descriptions that name no tool, and one that names `list_issue_8` outright.
  const small = specOf(scaleSpec(100));
  const large = specOf(scaleSpec(400));
  const a = countingRegExps(() => analyzeSpec(small));
  const b = countingRegExps(() => analyzeSpec(large));
  // Before: one per (described scalar parameter, other tool): ~3 × 100 × 100 vs ~3 × 400 × 400.
  assert.ok(b.built <= 4 * Math.max(a.built, 1) + 8, `regular expressions built: ${a.built} for 100 tools, ${b.built} for 400`);

  // Still found when a description names a tool outright.
  const snapshot = scaleSpec(40);
  const target = (snapshot.tools as { name: string; inputSchema: { properties: Record<string, { description: string }> } }[])[12]!;
  assert.equal(target.name, 'delete_project_12');
  target.inputSchema.properties.project_id!.description = 'An ID from list_project_9 (call it first).';
  const param = analyzeSpec(specOf(snapshot)).tools[12]!.params.find((p) => p.name === 'project_id')!;
  assert.deepEqual([...(param.producedBy ?? [])], ['list_project_9']);
});

test('producers are ranked once per kind of parameter, not once per consumer, and rank as a scan of every tool would', () => {
  const spec = specOf(scaleSpec(240));
  const analysis = analyzeSpec(spec);
  const rankings = new Set<readonly unknown[]>();
  let consumers = 0;
  for (const b of analysis.tools) {
    for (const p of b.params.filter((x) => x.isRef)) {
      consumers++;
      const ranked = analysis.producers(b, p);
      rankings.add(ranked);
      // The scan the index replaces: every tool scored, best first, ties by spec order; B is skipped by callers.
      const naive = analysis.tools
        .map((a) => ({ a, s: analysis.producerScore(a, b, p) }))
        .filter((x) => x.s > 0)
        .sort((x, y) => y.s - x.s || x.a.index - y.a.index)
        .map((x) => x.a.name);
      assert.deepEqual(
        ranked.filter((a) => a !== b).map((a) => a.name),
        naive,
        `${b.name}.${p.name}`,
      );
    }
  }
  assert.ok(consumers >= 240, `${consumers} reference parameters`);
  // 12 entities, each with its `<entity>_id`: a ranking each (before: one per tool and parameter).
  assert.ok(rankings.size <= 24, `${rankings.size} rankings for ${consumers} reference parameters`);
});

/** A spec whose tool list counts reads of its entries. */
function countingSpec(spec: Spec): { spec: Spec; reads: () => number } {
  let reads = 0;
  const tools = new Proxy(spec.tools, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { spec: { ...spec, tools }, reads: () => reads };
}

test('offline generation reads the spec’s tool list a fixed number of times per tool, not once per record and tool', () => {
  const perTool = (n: number): number => {
    const c = countingSpec(specOf(scaleSpec(n)));
    const result = generateOffline(c.spec, { seed: 1, simple: 2, complex: 2 });
    assert.ok(result.records.length > n / 10, `${result.records.length} records for ${n} tools`);
    return c.reads() / n;
  };
  const small = perTool(60);
  const large = perTool(240);
  // Before: every record looked its tools up by scanning the list (reads per tool grew with the tools).
  assert.ok(large <= small * 1.5 + 2, `tool list reads per tool: ${small.toFixed(1)} at 60 tools, ${large.toFixed(1)} at 240`);
});

test('the offline judge hashes the whole spec once per run, not once per record and view', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-scale-judge-'));
  try {
    const spec = specOf(scaleSpec(30));
    // A tool no record calls (its schema is unusable), whose every serialisation is counted:
    // hashing the spec (canonical JSON of every tool) reads each of its members twice.
    let reads = 0;
    const probe: Tool = { name: 'probe_tool', inputSchema: 'not a schema' };
    Object.defineProperty(probe, 'x-probe', { enumerable: true, get: () => (reads++, 'x') });
    spec.tools.push(probe);
    const run = await runPipeline({ spec, provider: 'offline', outDir: dir, simple: 3, complex: 3, seed: 1 });
    assert.equal(run.status, 'complete');
    assert.ok(run.counts.records >= 10);
    reads = 0;
    const judged = await judgeHarness(dir, { judges: [{ id: 'offline' }], spec });
    assert.equal(judged.judges[0]?.judged, run.counts.records);
    assert.ok(reads <= 2, `the spec was serialised ${reads / 2} times to judge ${run.counts.records} records`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an offline run hands out each record as it is made, after saying how many will come', async () => {
  const spec = specOf(scaleSpec(50));
  const events: OfflineEvent['kind'][] = [];
  const result = await generateOfflineYielding(spec, { seed: 1, simple: 2, complex: 2 }, undefined, (e) => {
    events.push(e.kind);
  });
  assert.equal(events[0], 'planned');
  assert.equal(events.filter((k) => k === 'record').length, result.records.length);
  assert.ok(result.records.length > 5);
});

test('a cancelled offline run keeps the records it wrote, lists them, and says a re-run starts again rather than resuming', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-scale-cancel-'));
  try {
    const spec = specOf(scaleSpec(120));
    const stop = new AbortController();
    const result = await runPipeline({
      spec,
      provider: 'offline',
      outDir: dir,
      simple: 2,
      complex: 2,
      seed: 1,
      signal: stop.signal,
      onProgress: (p) => {
        if (p.records >= 3) stop.abort();
      },
    });
    assert.equal(result.status, 'cancelled');
    const onDisk = readdirSync(join(dir, 'records')).filter((f) => f.endsWith('.json'));
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { status: string; recordIds: string[]; counts: { records: number } };
    assert.equal(manifest.status, 'cancelled');
    assert.ok(manifest.recordIds.length >= 3, `${manifest.recordIds.length} records listed`);
    assert.equal(onDisk.length, manifest.recordIds.length);
    assert.equal(manifest.counts.records, manifest.recordIds.length);
    const text = summaryText(result, { out: () => undefined, err: () => undefined, cwd: dir, env: {} });
    assert.match(text, /re-running the same command makes the harness again from the start/);
    assert.doesNotMatch(text, /resume/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a long enum, whose values are checked for repeats here rather than by ajv pair by pair, compiles; a repeated value is still refused', () => {
  assert.equal(analyzeSpec(specOf(bigEnumSpec(1000))).tools[0]?.broken, undefined);
  const repeated = bigEnumSpec(1000);
  const tool = (repeated.tools as { inputSchema: { properties: { code: { enum: string[] } } } }[])[0]!;
  tool.inputSchema.properties.code.enum[700] = tool.inputSchema.properties.code.enum[3]!;
  assert.match(analyzeSpec(specOf(repeated)).tools[0]?.broken ?? '', /duplicate items/);
});
