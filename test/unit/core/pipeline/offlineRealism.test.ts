/**
 * Whether offline harnesses read like a real user's tasks, measured over the whole fixture
 * corpus at the quick start's sizes: every value a call needs is stated by the user or taken
 * from an earlier output, mocks echo what they were asked about, numbers are ones a real
 * system returns, complex records carry data from call to call, titles and prompts differ.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appearsIn, idLikeValues, nameWords, textLeaves } from '../../../../src/core/checks/integrity';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import type { Spec } from '../../../../src/core/spec/model';
import { generateOffline } from '../../../../src/core/pipeline/offline';
import { fakerFor, rngFor } from '../../../../src/core/pipeline/offline/rng';
import { sampleSchema } from '../../../../src/core/pipeline/offline/sampler';
import { analysisOf } from '../../../../src/core/pipeline/offline/scenarios';
import { makeTheme } from '../../../../src/core/pipeline/offline/values';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { DEFAULT_COMPLEX, DEFAULT_SEED, DEFAULT_SIMPLE } from '../../../../src/core/workspace/defaults';
import { specsDir } from '../../fixturePaths';
import { groundingCounts, groundWorkflow, type GroundedValue, type GroundingInput } from '../../../../src/core/checks/grounding';
import { OFFLINE_MODEL } from '../../../../src/core/pipeline/offline';
import { listedFolder } from '../../../../src/core/pipeline/offline/listing';

const files = readdirSync(specsDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const corpus = files.map((file) => {
  const r = loadSpecText(readFileSync(join(specsDir, file), 'utf8'), file);
  assert.ok(r.ok, file);
  const records = generateOffline(r.spec, { seed: DEFAULT_SEED, simple: DEFAULT_SIMPLE, complex: DEFAULT_COMPLEX }).records;
  return { file, spec: r.spec, records };
});

/** Top-level arguments named like an identifier the output should echo. */
const ID_PARAM = /(id|Id|ID|^name|Name|^path|Path|^slug|Slug|^key|Key)$/;

/** Numeric leaves of a value with the key they sit under. */
function numbers(value: unknown, key = '', out: { key: string; value: number }[] = []): { key: string; value: number }[] {
  if (typeof value === 'number') out.push({ key, value });
  else if (Array.isArray(value)) for (const v of value) numbers(v, key, out);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value as Record<string, unknown>)) numbers(v, k, out);
  return out;
}

/** A key that counts things (a negative value is nonsense). */
function countsThings(key: string): boolean {
  const words = nameWords(key);
  return words.some((w) => /^(count|total|size|length|num|files|changed|items|results|bytes|lines|insertions|deletions)$/.test(w));
}

/** Whether a later call takes a value (3+ characters, or an integer ID) that an earlier output supplies and the user's first words do not. */
function hasDataFlow(record: HarnessRecord): boolean {
  const first = record.conversation.length ? [record.conversation[0]!.prompt] : [record.prompt];
  return record.expected_tools.some((call, j) => {
    if (j === 0) return false;
    const earlier = record.mock_outputs.slice(0, j).flatMap((m) => textLeaves(m.output));
    const values = [...textLeaves(call.arguments).filter((v) => v.length >= 3), ...idLikeValues(call.arguments).map((v) => v.value)];
    return values.some((value) => appearsIn(value, earlier, []) && !appearsIn(value, [], first));
  });
}

/**
 * A record as the exact judge reads it (`judge/view.ts`): its single-turn task, and its
 * conversation when it has one, each a grounding input for `checks/grounding.ts`.
 */
function judgedViews(spec: Spec, r: HarnessRecord): { view: string; input: GroundingInput }[] {
  const calls = r.expected_tools.map((c) => ({ name: c.name, arguments: c.arguments }));
  const outputs = r.expected_tools.map((_, i) => r.mock_outputs[i]?.output);
  const views = [{ view: 'single-turn', input: { calls, outputs, turns: [{ prompt: r.prompt, calls: calls.map((_, i) => i) }], spec } }];
  if (r.conversation.length >= 2)
    views.push({ view: 'conversation', input: { calls, outputs, turns: r.conversation.map((t) => ({ prompt: t.prompt, calls: t.calls })), spec } });
  return views;
}

/** Other runs whose values are held to the judge's rule too: the sizes of `offline.test.ts`, and another seed. */
const OTHER_RUNS = [
  { seed: DEFAULT_SEED, simple: 6, complex: 4 },
  { seed: 2, simple: DEFAULT_SIMPLE, complex: DEFAULT_COMPLEX },
];

test('the exact judge grounds every argument value of every expected call, in both views, on every fixture (checks/grounding.ts)', (t) => {
  const all: GroundedValue[] = [];
  const failures: string[] = [];
  const runs = [
    ...corpus.map((c) => ({ ...c, run: `seed ${DEFAULT_SEED}` })),
    ...OTHER_RUNS.flatMap((o) =>
      corpus.map(({ file, spec }) => ({ file, spec, run: `seed ${o.seed} ${o.simple}/${o.complex}`, records: generateOffline(spec, o).records })),
    ),
  ];
  for (const { file, spec, records, run } of runs) {
    for (const r of records) {
      for (const { view, input } of judgedViews(spec, r)) {
        const values = groundWorkflow(input);
        all.push(...values);
        for (const g of values.filter((v) => v.source.kind === 'none'))
          failures.push(`${file} (${run}) ${r.id} (${view}) call ${g.callIndex} ${g.param}=${JSON.stringify(g.value)} [${g.class}]`);
      }
    }
  }
  const c = groundingCounts(all);
  t.diagnostic(`${OFFLINE_MODEL}, 3 runs: ${c.values - c.none}/${c.values} values grounded (user ${c.user}, earlier output ${c.output}, schema ${c.schema})`);
  // The Done-when asks this of strings of 3+ characters and integer IDs; every value is held to it.
  assert.ok(
    all.some((g) => g.source.kind === 'output' && g.class === 'path'),
    'paths chained from listings are counted',
  );
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} of ${c.values} values found nowhere`);
});

test('filesystem: a path taken from a listing is the listed folder joined with an entry the listing shows', () => {
  const listings = /^(list_directory|list_directory_with_sizes)$/;
  const bad: string[] = [];
  let opened = 0;
  for (const r of corpus.find((c) => c.file === 'filesystem.json')!.records) {
    r.expected_tools.forEach((call, j) => {
      const paths = [call.arguments.path, ...(Array.isArray(call.arguments.paths) ? call.arguments.paths : [])].filter(
        (p): p is string => typeof p === 'string',
      );
      for (const path of paths) {
        const earlier = r.expected_tools.slice(0, j);
        if (earlier.some((e) => Object.values(e.arguments).flat().includes(path))) continue;
        const cut = path.lastIndexOf('/');
        const from = earlier.findIndex((e) => listings.test(e.name) && listedFolder(e.arguments) === path.slice(0, cut));
        if (from < 0) continue;
        opened++;
        const content = String((r.mock_outputs[from]?.output as { content?: unknown } | undefined)?.content);
        const entry = path.slice(cut + 1);
        if (!content.split('\n').some((l) => l === `[DIR] ${entry}` || l === `[FILE] ${entry}`))
          bad.push(`${r.id} call ${j + 1} ${path}: not listed in ${JSON.stringify(content)}`);
      }
    });
    // No path is a sibling of a listed folder that the listing never showed (`…/config` listed, `…/docs` taken).
    r.expected_tools.forEach((call, j) => {
      const path = call.arguments.path;
      if (typeof path !== 'string' || j === 0) return;
      for (const e of r.expected_tools.slice(0, j).filter((x) => listings.test(x.name))) {
        const listed = listedFolder(e.arguments) ?? '';
        const parent = listed.slice(0, listed.lastIndexOf('/'));
        if (path !== listed && path.startsWith(`${parent}/`) && !path.startsWith(`${listed}/`) && !r.prompt.includes(path))
          bad.push(`${r.id} call ${j + 1} ${path}: a sibling of the listed ${listed}`);
      }
    });
  }
  assert.ok(opened >= 5, `${opened} paths opened from listings`);
  assert.deepEqual(bad, []);
});

test('ID-like arguments appear in their own call’s mock output in at least 90% of calls', (t) => {
  let calls = 0;
  let echoed = 0;
  const misses: string[] = [];
  for (const { file, records } of corpus) {
    for (const r of records) {
      r.expected_tools.forEach((call, i) => {
        const ids = Object.entries(call.arguments).filter(([k, v]) => ID_PARAM.test(k) && (typeof v === 'string' || typeof v === 'number'));
        if (!ids.length) return;
        calls++;
        const leaves = textLeaves(r.mock_outputs[i]?.output);
        if (ids.every(([, v]) => appearsIn(v as string | number, leaves, []))) echoed++;
        else misses.push(`${file} ${r.id} ${call.name}`);
      });
    }
  }
  t.diagnostic(`ID-like arguments echoed in ${echoed}/${calls} calls (${((echoed / calls) * 100).toFixed(1)}%)`);
  assert.ok(echoed / calls >= 0.9, `${echoed}/${calls}; e.g. ${misses.slice(0, 8).join(', ')}`);
});

test('mock numbers are ones a real system returns: within ±10^13, counts never negative', () => {
  const bad: string[] = [];
  for (const { file, records } of corpus) {
    for (const r of records) {
      r.mock_outputs.forEach((m, i) => {
        for (const n of numbers(m.output)) {
          if (Math.abs(n.value) > 1e13 || (n.value < 0 && countsThings(n.key))) bad.push(`${file} ${r.id} output ${i} ${n.key}=${n.value}`);
        }
      });
    }
  }
  assert.deepEqual(bad.slice(0, 20), [], `${bad.length} absurd numbers`);
});

test('no mock output reports a failure the expected response would contradict (no error is simulated offline)', () => {
  const bad: string[] = [];
  const visit = (v: unknown, where: string): void => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, where));
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if ((/^(success|succeeded|ok|successful)$/i.test(k) && x === false) || (/^(is_?error|failed)$/i.test(k) && x === true))
          bad.push(`${where} ${k}=${String(x)}`);
        visit(x, where);
      }
  };
  for (const { file, records } of corpus) for (const r of records) r.mock_outputs.forEach((m, i) => visit(m.output, `${file} ${r.id} output ${i}`));
  assert.deepEqual(bad.slice(0, 10), [], `${bad.length} outputs report failure`);
});

test('numbers bounded by the safe-integer range are picked in real ranges; timestamps are of this decade', () => {
  const safe = { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
  const schema = {
    type: 'object',
    properties: {
      timestamp: safe,
      filesChanged: safe,
      created: { type: 'integer', description: 'Unix timestamp of creation' },
      offset: { type: 'integer', minimum: -1e15 },
    },
    required: ['timestamp', 'filesChanged', 'created', 'offset'],
  };
  for (let seed = 1; seed <= 20; seed++) {
    const theme = makeTheme(fakerFor(seed, 't'), rngFor(seed, 't'));
    const v = sampleSchema(
      schema,
      { root: schema, rng: rngFor(seed, 'n'), faker: fakerFor(seed, 'n'), theme, optionalTop: 0, optionalNested: 0, arrayItems: [1, 1] },
      '',
      0,
    ) as Record<string, number>;
    const decade = (t: number): boolean => t >= Date.UTC(2020, 0, 1) / 1000 && t < Date.UTC(2030, 0, 1) / 1000;
    assert.ok(decade(v.timestamp!) && decade(v.created!), JSON.stringify(v));
    assert.ok(v.filesChanged! >= 0 && v.filesChanged! < 1e13, JSON.stringify(v));
    assert.ok(Math.abs(v.offset!) < 1e13, JSON.stringify(v));
  }
});

/**
 * Whether a record gathers independent results that its response combines (multi-hop): every
 * call only reads, and the expected response quotes values from at least two calls' outputs.
 */
function isMultiHop(spec: Spec, record: HarnessRecord): boolean {
  const analysis = analysisOf(spec);
  if (!record.expected_tools.every((c) => analysis.byName.get(c.name)?.phase === 'read')) return false;
  const quoting = record.mock_outputs.filter((m) => textLeaves(m.output).some((v) => v.length >= 3 && record.expected_response.includes(v)));
  return quoting.length >= 2;
}

// 75%, down from 80% when values were taken from lists nobody picked: a listed item whose value is
// its own name (an index, a branch, a Kubernetes resource) is now said by the user, who must say
// which one is meant (`checks/determinacy.ts`), so that value no longer flows from an output.
test('at least 75% of complex records have data flow: multi-step (an output feeds a later call) or multi-hop (reads the response combines)', (t) => {
  let complex = 0;
  let steps = 0;
  let hops = 0;
  for (const { spec, records } of corpus) {
    for (const r of records) {
      if (r.tier !== 'complex') continue;
      complex++;
      if (hasDataFlow(r)) steps++;
      else if (isMultiHop(spec, r)) hops++;
    }
  }
  t.diagnostic(
    `data flow in ${steps + hops}/${complex} complex records: ${steps} multi-step, ${hops} multi-hop (${(((steps + hops) / complex) * 100).toFixed(1)}%)`,
  );
  assert.ok((steps + hops) / complex >= 0.75, `${steps} + ${hops} of ${complex}`);
});

test('filesystem: no file is read or written at a path an earlier call listed, searched or created as a folder', () => {
  const folderTools = /^(list_directory|list_directory_with_sizes|search_files|directory_tree|create_directory)$/;
  const fileTools = /^(read_file|read_text_file|read_media_file|write_file|edit_file|get_file_info)$/;
  const bad: string[] = [];
  for (const r of corpus.find((c) => c.file === 'filesystem.json')!.records) {
    const folders = new Set<unknown>();
    for (const call of r.expected_tools) {
      if (fileTools.test(call.name) && folders.has(call.arguments.path)) bad.push(`${r.id} ${call.name} ${String(call.arguments.path)}`);
      if (folderTools.test(call.name)) folders.add(call.arguments.path);
    }
  }
  assert.deepEqual(bad, []);
});

test('wording: categories are nouns, no verb says its object twice, no "is" before a plural', () => {
  const bad: string[] = [];
  for (const { file, records } of corpus) {
    for (const r of records) {
      const where = `${file} ${r.id}`;
      if (/(eds|fors)$|^emulates$/i.test(r.category)) bad.push(`${where}: category ${r.category}`);
      const texts = [r.prompt, r.expected_response, ...r.conversation.map((t) => `${t.prompt} ${t.followup}`)];
      for (const t of texts) {
        const twice = /\b([a-z]{3,}) the \1\b/i.exec(t);
        if (twice) bad.push(`${where}: "${twice[0]}"`);
        const isPlural = /\bHere is the [a-z ]*(children|logs|details)\b/.exec(t);
        if (isPlural) bad.push(`${where}: "${isPlural[0]}"`);
        if (/this is better than|I did this:/.test(t)) bad.push(`${where}: aside in "${t.slice(0, 80)}"`);
      }
    }
  }
  assert.deepEqual(bad.slice(0, 15), [], `${bad.length} wording problems`);
});

test('no two scenarios of a run share a title or a first prompt', () => {
  for (const { file, records } of corpus) {
    const titles = records.map((r) => r.title);
    const firsts = records.map((r) => r.conversation[0]?.prompt ?? r.prompt);
    assert.deepEqual(
      titles.filter((x, i) => titles.indexOf(x) !== i),
      [],
      `${file}: duplicate titles`,
    );
    assert.deepEqual(
      firsts.filter((x, i) => firsts.indexOf(x) !== i),
      [],
      `${file}: duplicate first prompts`,
    );
  }
});

test('same seed → byte-identical harness at the quick start’s sizes', () => {
  for (const { file, spec, records } of corpus.filter((c) => /^(filesystem|git-official|slack)\.json$/.test(c.file))) {
    const again = generateOffline(spec, { seed: DEFAULT_SEED, simple: DEFAULT_SIMPLE, complex: DEFAULT_COMPLEX }).records;
    assert.equal(JSON.stringify(again), JSON.stringify(records), file);
  }
});
