/**
 * Reports end to end: offline harnesses of two real fixture specs, judged by two synthetic
 * judges (and the real offline judge), analysed, and every number checked against a
 * recomputation straight from the stored judgments; the published JSON Schema; Markdown
 * escaping; and the HTML page opened in headless Chromium under its CSP (no console errors, no
 * CSP violations, every figure drawn, hostile spec text inert). A screenshot of the page is saved
 * to /tmp/agent-seer-report.png.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- browser globals inside page.evaluate callbacks (this file compiles without the DOM lib) */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { analyzeSpec } from '../../../../src/core/complexity';
import type { HarnessRecord, Judgment } from '../../../../src/core/harness/format';
import { readHarness, recordFile, stableJson, writeRecordFile } from '../../../../src/core/harness/store';
import { judgeHarness } from '../../../../src/core/judge';
import { analyzeHarnesses, UnknownJudgeError, type HarnessInput } from '../../../../src/core/report/analyze';
import { ISSUE_GROUPS, issueGroupOf } from '../../../../src/core/report/judgments';
import { ARGUMENT_REPORT_KEYS, ARGUMENT_SUBDIMENSIONS, ARGUMENT_SUBS, COH_SCALE_MAX } from '../../../../src/core/vocabulary';
import type { StoredJudgment } from '../../../../src/core/judge';
import { renderHtml, jsonForHtml, scriptForHtml } from '../../../../src/core/report/render/html';
import { escapeMarkdown, renderMarkdown } from '../../../../src/core/report/render/markdown';
import { REPORT_SCHEMA_FILE, REPORT_VERSION, ReportModel, reportJsonSchema } from '../../../../src/core/report/schema';
import { pearson, spearman } from '../../../../src/core/report/stats';
import { repoRoot } from '../../fixturePaths';
import { closeBrowser, ensureBundle, figures, loadPage, openReport, whenDrawn } from './reportPage';
import { HOSTILE, JUDGE_A, JUDGE_B, judgedHarness, type JudgedHarness } from './reportSetup.test';

const SCREENSHOT = '/tmp/agent-seer-report.png';

// Browser globals inside page.evaluate callbacks (the tests compile without the DOM lib).
declare const window: any;
declare const document: any;
const B = 2000;
/** Report key → the judge's short sub-dimension (`value_accuracy` → `value`). */
const ARGUMENT_KEY_OF = Object.fromEntries(ARGUMENT_SUBS.map((k) => [ARGUMENT_REPORT_KEYS[k], k])) as Record<string, string>;
const close = (a: number | null | undefined, b: number, what: string, tol = 1e-9) => {
  assert.ok(a !== null && a !== undefined, `${what}: null`);
  assert.ok(Math.abs(a - b) <= tol, `${what}: expected ${b}, got ${a}`);
};
const avg = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sampleSd = (xs: readonly number[]) => Math.sqrt(xs.reduce((s, x) => s + (x - avg(xs)) ** 2, 0) / (xs.length - 1));

let fs: JudgedHarness;
let git: JudgedHarness;
let inputs: HarnessInput[];
let model: ReportModel;

before(async () => {
  fs = await judgedHarness('filesystem.json', { seed: 5, name: `fs ${HOSTILE}`, category: `Files ${HOSTILE}` });
  git = await judgedHarness('git-official.json', { seed: 9, simple: 10, complex: 8 });
  // Read back from disk: the report sees exactly what was stored.
  inputs = [];
  for (const h of [fs, git]) {
    const read = await readHarness(h.dir);
    assert.deepEqual(read.problems, []);
    inputs.push({ dir: h.dir, manifest: read.manifest, records: read.records, spec: h.spec });
  }
  model = analyzeHarnesses(inputs, { resamples: B, seed: 7 });
});

/** Every stored judgment of a judge, one per view (the paper's records): each record's single-turn view, and its conversation's. */
const viewJudgments = (records: readonly HarnessRecord[], judge: string): { record: HarnessRecord; j: Judgment }[] =>
  records.flatMap((r) => {
    const j = r.judgments?.[judge];
    if (!j) return [];
    const conversation = (j as { conversation?: Judgment }).conversation;
    return conversation
      ? [
          { record: r, j },
          { record: r, j: conversation },
        ]
      : [{ record: r, j }];
  });
/** Rows a harness has: one per record, two for a record with a conversation. */
const viewCount = (records: readonly HarnessRecord[]): number => records.reduce((n, r) => n + (r.conversation.length >= 2 ? 2 : 1), 0);
const scores = (records: readonly HarnessRecord[], judge: string, key: 'tc' | 'coh') =>
  viewJudgments(records, judge)
    .map((v) => v.j[key])
    .filter((x): x is number => typeof x === 'number');

test('per-server scores match a recomputation from the stored judgments (Tables 3 and 7)', () => {
  const j = model.judges[0];
  assert.ok(j);
  assert.equal(j.judge, JUDGE_A, 'the judge with the most TC scores is primary');
  assert.equal(j.servers.length, 2);
  inputs.forEach((input, i) => {
    const s = j.servers[i];
    assert.ok(s);
    const records = input.records;
    assert.equal(s.n, viewCount(records), 'a row per view: every record, and each conversation again');
    assert.equal(s.records, records.length);
    assert.ok(s.n > s.records, 'some record has a conversation');
    const tc = scores(records, JUDGE_A, 'tc');
    const coh = scores(records, JUDGE_A, 'coh');
    assert.equal(s.tc.n, viewCount(records) - 1, 'the record whose TC judge failed is left out');
    assert.equal(s.coh.n, viewCount(records));
    close(s.tc.mean, avg(tc), 'TC mean');
    close(s.tc.sd, sampleSd(tc), 'TC sd (n − 1)');
    close(s.coh.mean, avg(coh), 'Coh mean');
    assert.ok(s.tc.ci && s.tc.ci[0] <= avg(tc) && avg(tc) <= s.tc.ci[1], 'CI holds the mean');
    assert.ok(s.tc.ci[1] - s.tc.ci[0] < (4 * sampleSd(tc)) / Math.sqrt(tc.length) + 1e-9, 'CI about ±2 SE wide');
    close(s.tc.perfect, tc.filter((x) => x === 1).length / tc.length, 'perfect share');
    const tier = (t: string) =>
      scores(
        records.filter((r) => r.tier === t),
        JUDGE_A,
        'tc',
      );
    close(s.simpleTc, avg(tier('simple')), 'simple TC');
    close(s.complexTc, avg(tier('complex')), 'complex TC');
    close(s.tcDelta, avg(tier('complex')) - avg(tier('simple')), 'Δ');
    close(s.meanWorkflowLength, avg(records.map((r) => r.expected_tools.length)), 'w̄');
    assert.equal(s.multiTurn, records.filter((r) => r.conversation.length >= 2).length);
    // Histograms count every score once.
    assert.equal(
      s.histograms.tc.reduce((a, b) => a + b, 0),
      tc.length,
    );
    assert.equal(s.histograms.tc[9], tc.filter((x) => x >= 0.9).length, 'last bin is [0.9, 1.0]');
  });
  // The pooled row is over all records.
  const all = inputs.flatMap((i) => i.records);
  close(j.corpus.tc.mean, avg(scores(all, JUDGE_A, 'tc')), 'corpus TC');
});

test('coverage and Gini of tool usage (Table 5)', () => {
  inputs.forEach((input, i) => {
    const s = model.judges[0]?.servers[i];
    assert.ok(s && input.manifest);
    const specTools = Object.keys(input.manifest.spec.toolHashes);
    const calls = new Map<string, number>();
    for (const r of input.records) for (const c of r.expected_tools) calls.set(c.name, (calls.get(c.name) ?? 0) + 1);
    assert.equal(s.toolsInSpec, specTools.length);
    assert.equal(s.toolsUsed, specTools.filter((t) => calls.has(t)).length);
    close(s.coverage, s.toolsUsed / specTools.length, 'coverage');
    // Gini by its definition: Σi Σj |xi − xj| / (2 n² μ) over calls per used tool.
    const x = [...calls.values()];
    let sum = 0;
    for (const a of x) for (const b of x) sum += Math.abs(a - b);
    close(s.gini, sum / (2 * x.length * x.length * avg(x)), 'Gini');
    const st = model.structure[i];
    assert.ok(st);
    assert.equal(
      st.workflowLengths.reduce((a, w) => a + w.records, 0),
      input.records.length,
    );
    // Co-occurrence: each unordered pair of distinct tools per record; adjacency: consecutive calls.
    const pairs = new Set<string>();
    let transitions = 0;
    for (const r of input.records) {
      const names = [...new Set(r.expected_tools.map((c) => c.name))].sort();
      for (let a = 0; a < names.length; a++) for (let b = a + 1; b < names.length; b++) pairs.add(`${names[a]}|${names[b]}`);
      transitions += Math.max(0, r.expected_tools.length - 1);
    }
    assert.equal(st.cooccurrence.length, pairs.size);
    assert.equal(
      st.adjacency.reduce((a, e) => a + e.weight, 0),
      transitions,
    );
    assert.deepEqual(st.profile?.tools, input.spec?.tools.length);
  });
});

test('dimension rates, argument sub-dimension failures and aggregation rules (Tables 4, 11, 14, 16)', () => {
  const c = model.judges[0]?.corpus;
  assert.ok(c);
  const all = viewJudgments(
    inputs.flatMap((i) => i.records),
    JUDGE_A,
  ).map((v) => v.j);
  const dim = (d: string) => all.map((j) => j.dimensions[d]).filter((x): x is number => typeof x === 'number');
  for (const d of ['usage', 'selection', 'ordering', 'arguments'] as const) {
    const xs = dim(d);
    assert.equal(c.dimensions[d].n, xs.length, d);
    close(c.dimensions[d].mean, avg(xs), `${d} mean`);
    close(c.dimensions[d].perfect, xs.filter((x) => x === 1).length / xs.length, `${d} perfect`);
    close(c.dimensions[d].zero, xs.filter((x) => x === 0).length / xs.length, `${d} zero`);
  }
  assert.ok(c.dimensions.ordering.n < c.dimensions.usage.n, 'ordering only for multi-call records');

  // Sub-dimensions: the judge's `arguments.value` is the paper's value_accuracy, and so on.
  const keyOf = {
    completeness: 'completeness',
    name_accuracy: 'name',
    value_accuracy: 'value',
    type_compliance: 'type',
    format_compliance: 'format',
    relevancy: 'relevancy',
  } as const;
  const lowest = Object.fromEntries(ARGUMENT_SUBDIMENSIONS.map((k) => [k, 0])) as Record<string, number>;
  const below = { ...lowest };
  for (const j of all) {
    let low: string | undefined;
    let lowScore = 1;
    for (const k of ARGUMENT_SUBDIMENSIONS) {
      const v = j.subdimensions[`arguments.${keyOf[k]}`];
      if (typeof v !== 'number' || v >= 1) continue;
      below[k] = (below[k] ?? 0) + 1;
      if (v < lowScore) {
        lowScore = v;
        low = k;
      }
    }
    if (low) lowest[low] = (lowest[low] ?? 0) + 1;
  }
  assert.deepEqual(c.argumentFailures.anyBelowOne, below);
  assert.deepEqual(c.argumentFailures.lowest, lowest);
  assert.equal(
    c.argumentFailures.failing,
    Object.values(lowest).reduce((a, b) => a + b, 0),
  );
  assert.ok(c.argumentFailures.lowest.value_accuracy >= c.argumentFailures.lowest.relevancy, 'value accuracy dominates, as generated');

  // Aggregation: per turn over the applicable dimensions, then over turns and records.
  const perRecord = (rule: (xs: number[]) => number) =>
    avg(
      all.map((j) =>
        avg(
          ((j as unknown as { turns: { dimensions: Record<string, number | null> }[] }).turns ?? []).map((t) =>
            rule(Object.values(t.dimensions).filter((x): x is number => typeof x === 'number')),
          ),
        ),
      ),
    );
  close(c.aggregation.arithmetic, perRecord(avg), 'arithmetic', 1e-12);
  close(
    c.aggregation.harmonic,
    perRecord((xs) => (xs.some((x) => x === 0) ? 0 : xs.length / xs.reduce((a, x) => a + 1 / x, 0))),
    'harmonic',
    1e-12,
  );
  close(
    c.aggregation.minimum,
    perRecord((xs) => Math.min(...xs)),
    'minimum',
    1e-12,
  );
  assert.ok((c.aggregation.minimum ?? 1) <= (c.aggregation.harmonic ?? 0) && (c.aggregation.harmonic ?? 1) <= (c.aggregation.arithmetic ?? 0));
});

test('coherence aspects on the raw 1–3 scale and the issue taxonomy (Tables 8 and 10)', () => {
  const c = model.judges[0]?.corpus;
  assert.ok(c);
  const all = viewJudgments(
    inputs.flatMap((i) => i.records),
    JUDGE_A,
  ).map((v) => v.j);
  const flow = all.map((j) => j.subdimensions['coherence.logical_flow']).filter((x): x is number => typeof x === 'number');
  // Stored s / 3 is rounded to 4 places: 1 / 3 reads back as 0.9999, taken as the scale's floor 1.
  close(c.coherenceAspects.logical_flow.mean, avg(flow.map((v) => Math.max(1, COH_SCALE_MAX * v))), 'logical flow, raw');
  const groups = new Map<string, number>();
  for (const j of all) {
    const codes = Object.values((j as unknown as { manifestations: Record<string, string[]> }).manifestations).flat();
    for (const g of new Set(codes.map(issueGroupOf))) groups.set(g, (groups.get(g) ?? 0) + 1);
  }
  assert.ok(groups.size >= 3, 'several groups exercised');
  assert.deepEqual(Object.fromEntries(c.coherenceIssues.map((i) => [i.group, i.records])), Object.fromEntries(groups));
  for (const i of c.coherenceIssues)
    assert.ok(
      ISSUE_GROUPS.some((g) => g.group === i.group),
      i.group,
    );
  const counts = c.coherenceIssues.map((i) => i.records);
  assert.deepEqual(
    counts,
    [...counts].sort((a, b) => b - a),
    'most frequent first',
  );
});

test('tool-level and server-level correlations with the schema profile (Section 5.2, Table 15)', () => {
  const j = model.judges[0];
  assert.ok(j);
  // Recompute the tool grain: every in-spec tool called, its parameter count and mean TC.
  const params: number[] = [];
  const tcs: number[] = [];
  for (const input of inputs) {
    const metrics = new Map(analyzeSpec(input.spec!).perTool.map((m) => [m.name, m]));
    const byTool = new Map<string, number[]>();
    for (const { record: r, j: judgment } of viewJudgments(input.records, JUDGE_A)) {
      const tc = judgment.tc;
      for (const name of new Set(r.expected_tools.map((c) => c.name))) {
        if (typeof tc === 'number') byTool.set(name, [...(byTool.get(name) ?? []), tc]);
      }
    }
    for (const [name, xs] of byTool) {
      params.push(metrics.get(name)?.params ?? NaN);
      tcs.push(avg(xs));
    }
  }
  const row = j.correlations.find((r) => r.grain === 'tool' && r.x === 'params' && r.y === 'tc');
  assert.ok(row);
  const expected = pearson(params, tcs);
  assert.equal(row.n, params.length);
  close(row.r, expected.r, 'tool-level r');
  close(row.p, expected.p, 'tool-level p');
  const rec = j.correlations.find((r) => r.grain === 'record' && r.x === 'tc' && r.y === 'coh');
  assert.ok(rec && rec.n > 10);
  const server = j.correlations.find((r) => r.grain === 'server' && r.x === 'params' && r.y === 'tc');
  assert.equal(server?.n, 2);
  assert.equal(server?.p, null, 'no p-value from two servers');
  // Rank agreement between aggregation rules over records.
  const ranks = j.aggregationRanks.find((a) => a.grain === 'record' && a.a === 'arithmetic' && a.b === 'minimum');
  assert.ok(ranks && ranks.rho !== null && ranks.rho > 0.5);
});

test('two judges: paired agreement recomputed from the stored scores (Appendix A.8)', () => {
  assert.equal(model.judges.length, 2);
  assert.equal(model.agreement.length, 1);
  const p = model.agreement[0];
  assert.ok(p);
  assert.equal(p.a, JUDGE_A);
  assert.equal(p.b, JUDGE_B);
  const pairs: [number, number][] = [];
  const cohPairs: [number, number][] = [];
  for (const input of inputs) {
    for (const r of input.records) {
      const a = r.judgments?.[JUDGE_A];
      const b = r.judgments?.[JUDGE_B];
      // Paired view by view: single-turn with single-turn, conversation with conversation.
      const conversationOf = (j: Judgment | undefined) => (j as { conversation?: Judgment } | undefined)?.conversation;
      for (const [va, vb] of [
        [a, b],
        [conversationOf(a), conversationOf(b)],
      ]) {
        if (typeof va?.tc === 'number' && typeof vb?.tc === 'number') pairs.push([va.tc, vb.tc]);
        if (typeof va?.coh === 'number' && typeof vb?.coh === 'number') cohPairs.push([va.coh, vb.coh]);
      }
    }
  }
  assert.equal(p.tc.n, pairs.length);
  assert.ok(p.tc.n < inputs.reduce((n, i) => n + viewCount(i.records), 0), 'unpaired records are left out');
  assert.deepEqual(p.tc.points, pairs);
  const d = pairs.map(([a, b]) => b - a);
  close(p.tc.meanDiff, avg(d), 'mean diff');
  close(p.tc.mae, avg(d.map(Math.abs)), 'MAE');
  close(p.tc.within01, d.filter((x) => Math.abs(x) <= 0.1 + 1e-9).length / d.length, '±0.1');
  close(p.tc.blandAltman.upper, avg(d) + 1.96 * sampleSd(d), 'upper LoA');
  close(
    p.tc.pearson.r,
    pearson(
      pairs.map((x) => x[0]),
      pairs.map((x) => x[1]),
    ).r,
    'Pearson',
  );
  close(
    p.tc.spearman.r,
    spearman(
      pairs.map((x) => x[0]),
      pairs.map((x) => x[1]),
    ).r,
    'Spearman',
  );
  assert.ok(p.tc.meanDiffCi && p.tc.meanDiffCi[0] <= avg(d) && avg(d) <= p.tc.meanDiffCi[1]);
  // Judge B is built stricter on coherence: the shift shows, with a CI below zero.
  const dc = cohPairs.map(([a, b]) => b - a);
  close(p.coh.meanDiff, avg(dc), 'coh mean diff');
  assert.ok(p.coh.meanDiffCi && p.coh.meanDiffCi[1] < 0, 'stricter judge detected');
  assert.ok((p.tc.pearson.r ?? 0) > 0.5, 'TC judges correlate');
  // Per-server paired means under each judge, and sub-dimension counts per judge.
  assert.equal(p.tc.servers.length, 2);
  const s0 = p.tc.servers[0];
  assert.ok(s0 && s0.aCi && s0.bCi);
  assert.deepEqual(
    p.argumentFailures.map((f) => f.a),
    ARGUMENT_SUBDIMENSIONS.map((k) => model.judges[0]?.corpus.argumentFailures.anyBelowOne[k]),
  );
});

test('the model is valid, seeded and reproducible; the published JSON Schema is in sync and validates it', () => {
  assert.doesNotThrow(() => ReportModel.parse(model));
  const again = analyzeHarnesses(inputs, { resamples: B, seed: 7 });
  assert.deepEqual(again, model, 'same input and seed → identical report');
  const otherSeed = analyzeHarnesses(inputs, { resamples: B, seed: 8 });
  assert.notDeepEqual(otherSeed.judges[0]?.servers[0]?.tc.ci, model.judges[0]?.servers[0]?.tc.ci);
  assert.equal(otherSeed.judges[0]?.servers[0]?.tc.mean, model.judges[0]?.servers[0]?.tc.mean);
  // A server's CI does not move when another server is added (seeds are per label).
  const alone = analyzeHarnesses([inputs[1] as HarnessInput], { resamples: B, seed: 7, judges: [JUDGE_A] });
  assert.deepEqual(alone.judges[0]?.servers[0]?.tc, model.judges[0]?.servers[1]?.tc);

  const onDisk = readFileSync(join(repoRoot, 'schemas', REPORT_SCHEMA_FILE), 'utf8');
  assert.equal(
    onDisk,
    stableJson(reportJsonSchema()),
    `schemas/${REPORT_SCHEMA_FILE} is out of date: npm run compile-tests && node -e "const m=require('./out/src/core/report/schema.js');require('fs').writeFileSync('schemas/'+m.REPORT_SCHEMA_FILE, JSON.stringify(m.reportJsonSchema(),null,2)+'\\n')"`,
  );
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(JSON.parse(onDisk) as object);
  const json = JSON.parse(JSON.stringify(model)) as unknown;
  assert.ok(validate(json), JSON.stringify(validate.errors?.slice(0, 3)));
  // The contract's documented minimum per judge and server.
  const s = (json as { judges: { servers: Record<string, unknown>[] }[] }).judges[0]?.servers[0];
  for (const k of ['name', 'n', 'tc', 'coh', 'simpleTc', 'complexTc', 'meanWorkflowLength', 'coverage', 'gini']) assert.ok(s && k in s, k);
  assert.ok(!validate({ ...(json as object), reportVersion: REPORT_VERSION + 1 }), 'the schema rejects another version');
});

test('missing and odd judgments: nulls, other spellings, unjudged records, no judgments at all', () => {
  const base = inputs[0]?.records ?? [];
  const odd: HarnessRecord[] = base.slice(0, 4).map((r, i) => {
    if (i === 0) return { ...r, judgments: undefined };
    if (i === 1) return { ...r, judgments: { x: { tc: null, coh: null, dimensions: {}, subdimensions: {}, notes: ['judge failed'] } } };
    // Nested maps, Table 14 names, a 0–10 leftover, and issues cited only in the notes.
    return {
      ...r,
      judgments: {
        x: {
          tc: 0.5,
          coh: 0.25,
          dimensions: { usage: 1, selection: { score: 0.5 }, ordering: null, arguments: 0.4 },
          subdimensions: { arguments: { value_accuracy: 0.2, name_accuracy: 1, completeness: 10 }, coherence: { logical_flow: 0 } },
          notes: ['too_shallow: the reply skips the sizes', 'non_sequitur'],
        },
      },
    };
  });
  const m = analyzeHarnesses([{ records: odd, dir: '/tmp/odd-harness' }], { resamples: 200 });
  const s = m.judges[0]?.servers[0];
  assert.ok(s);
  assert.equal(s.name, 'odd-harness', 'named after the folder without a manifest');
  assert.equal(s.coverage, null, 'coverage unknown without a manifest');
  assert.equal(s.judged, 2);
  close(s.tc.mean, 0.5, 'TC of the judged records');
  assert.equal(s.tc.sd, 0, 'two equal scores');
  close(s.dimensions.selection.mean, 0.5, 'a {score} object');
  assert.equal(s.dimensions.ordering.n, 0);
  assert.equal(s.argumentFailures.lowest.value_accuracy, 2);
  close(s.argumentFailures.means.completeness, 1, '0–10 read as such');
  close(s.coherenceAspects.logical_flow.mean, 1, 'normalised 0 is raw 1');
  assert.deepEqual(s.coherenceIssues.map((i) => i.group).sort(), ['Missing info / shallow response', 'Non-sequitur or topic shift']);
  assert.ok(m.warnings.some((w) => w.includes('No manifest')));
  assert.doesNotThrow(() => ReportModel.parse(m));

  const none = analyzeHarnesses([{ records: [base[0] as HarnessRecord].map((r) => ({ ...r, judgments: undefined })), manifest: inputs[0]?.manifest }], {
    resamples: 50,
  });
  assert.equal(none.judges[0]?.judge, null);
  assert.equal(none.judges[0]?.servers[0]?.tc.mean, null);
  assert.equal(none.judges[0]?.servers[0]?.tc.ci, null);
  assert.ok(none.warnings.some((w) => w.includes('No record has a judgment')));
  assert.doesNotThrow(() => ReportModel.parse(none));
  assert.doesNotThrow(() => renderMarkdown(none));
});

test('an unknown judge id is refused with the available ones', () => {
  assert.throws(
    () => analyzeHarnesses(inputs, { judges: ['nope'] }),
    (e: unknown) => e instanceof UnknownJudgeError && e.available.includes(JUDGE_A) && e.available.includes(JUDGE_B) && /nope/.test(e.message),
  );
});

test('the real offline judge: its exact argument score is summarised, TC and Coh stay empty', async () => {
  const h = await judgedHarness('filesystem.json', { seed: 12, simple: 3, complex: 2 });
  after(() => rmSync(h.dir, { recursive: true, force: true }));
  // The offline generator grounds every value it writes: plant one found nowhere, as a hand edit would.
  const before = await readHarness(h.dir);
  const planted = before.records.find((r) => typeof r.expected_tools[0]?.arguments.path === 'string');
  assert.ok(planted, 'a record whose first call takes a path');
  planted.expected_tools[0]!.arguments.path = '/nowhere/zqxv9-planted.txt';
  await writeRecordFile(h.dir, recordFile({ dir: h.dir, files: before.files }, planted), planted);
  await judgeHarness(h.dir, { judges: [{ id: 'offline' }], spec: h.spec });
  const read = await readHarness(h.dir);
  const m = analyzeHarnesses([{ dir: h.dir, manifest: read.manifest, records: read.records, spec: h.spec }], { judges: ['offline'], resamples: 200 });
  const s = m.judges[0]?.servers[0];
  assert.ok(s);
  const exact = read.records
    .map((r) => (r.judgments?.offline as { exact?: number | null } | undefined)?.exact)
    .filter((x): x is number => typeof x === 'number');
  assert.equal(s.exact.n, viewCount(read.records), 'both views of each multi-turn record are judged');
  close(
    s.exact.mean,
    avg([...exact, ...read.records.flatMap((r) => (r.judgments?.offline as { conversation?: { exact?: number } } | undefined)?.conversation?.exact ?? [])]),
    'exact mean',
  );
  assert.equal(s.tc.n, 0);
  assert.equal(s.argumentFailures.n, viewCount(read.records), 'exact argument sub-scores are read');
  assert.equal(typeof s.argumentFailures.means.value_accuracy, 'number', 'value accuracy from grounding, without a model');

  // The exact view: grounding summed over the stored judgments, six sub-dimension means, every exact finding listed.
  // Both views of a multi-turn record are judged rows: the single-turn task and, nested, the conversation.
  const viewsOf = (j: StoredJudgment & { conversation?: StoredJudgment }): [string, StoredJudgment][] =>
    j.conversation
      ? [
          ['single-turn', j],
          ['conversation', j.conversation],
        ]
      : [['single-turn', j]];
  const rowsStored = read.records.flatMap((r) => viewsOf(r.judgments?.offline as unknown as StoredJudgment).map(([view, j]) => ({ id: r.id, view, j })));
  const stored = rowsStored.map((x) => x.j);
  const e = s.exactArguments;
  assert.equal(e.records, viewCount(read.records));
  const sum = (k: 'values' | 'none' | 'findings'): number => stored.reduce((n, j) => n + (j.grounding?.[k] ?? 0), 0);
  assert.equal(e.grounding.values, sum('values'));
  assert.ok(e.grounding.values > 0);
  close(e.grounding.rate, (sum('values') - sum('none')) / sum('values'), 'grounding rate');
  for (const k of ARGUMENT_SUBDIMENSIONS) assert.equal(typeof e.means[k], 'number', k);
  const expectedFailures = rowsStored.flatMap(({ id, view, j }) =>
    (j.findings ?? [])
      .filter((f) => f.source === 'exact' && f.subdimension.startsWith('arguments.'))
      .map((f) => `${id}|${view}|${f.callIndex}|${f.param}|${f.subdimension}`),
  );
  assert.ok(
    expectedFailures.some((k) => k.startsWith(`${planted.id}|single-turn|0|path|`)),
    'the planted value is a failure at its record, call and argument',
  );
  assert.deepEqual(
    e.failures.map((f) => `${f.record}|${f.view}|${f.call}|${f.param}|arguments.${ARGUMENT_KEY_OF[f.subdimension]}`).sort(),
    expectedFailures.sort(),
  );
  assert.equal(e.failingRecords, new Set(expectedFailures.map((k) => k.split('|').slice(0, 2).join('|'))).size, 'failing rows (views)');
  assert.ok(e.failures.every((f) => f.tool === read.records.find((r) => r.id === f.record)?.expected_tools[f.call ?? -1]?.name));
  // These records also hold the synthetic judges' TC: the advice is to report with them, not to run a judge again.
  assert.ok(
    m.warnings.some((w) =>
      /exact argument checks only .*TC and coherence by synthetic:judge-a, synthetic:judge-b are in these records: report with --judge synthetic:judge-a/.test(
        w,
      ),
    ),
    'says where the model-judged TC is',
  );
  assert.ok(!m.warnings.some((w) => w.includes('agent-seer judge HARNESS_DIR')), 'no advice to run a judge that already ran');
  assert.ok(!m.warnings.some((w) => w.startsWith('Unscored')), 'an exact-only judge is not "unscored" on every record: the hint says it once');

  // Markdown and the HTML page show the same figures.
  const md = renderMarkdown(m);
  for (const title of ['Value grounding (exact)', 'Exact argument score by sub-dimension', 'Failing records (exact)'])
    assert.ok(md.includes(`### ${title}`), title);
  assert.match(md, /values grounded \d+%/);
  const failing = e.failures[0];
  assert.ok(failing);
  assert.ok(md.includes(escapeMarkdown(failing.record)));
  ensureBundle();
  const { page, log } = await openReport(renderHtml(m), '/tmp/agent-seer-report-exact.html');
  const shown = await page.evaluate(() => ({
    headings: Array.from<any>(document.querySelectorAll('h3')).map((h) => String(h.textContent ?? '')),
    cells: Array.from<any>(document.querySelectorAll('td')).map((td) => String(td.textContent ?? '')),
    warnings: String(document.querySelector('.warnings')?.textContent ?? ''),
  }));
  await page.close();
  assert.deepEqual(log.errors, []);
  for (const title of ['Value grounding (exact)', 'Exact argument score by sub-dimension', 'Failing records (exact)'])
    assert.ok(shown.headings.includes(title), title);
  assert.ok(shown.cells.includes(failing.record) && shown.cells.includes(failing.reason));
  assert.ok(shown.cells.includes(`${Math.round((e.grounding.rate ?? 0) * 100)}%`), 'the grounding rate');
  assert.match(shown.warnings, /--judge synthetic:judge-a/);
  assert.deepEqual(
    analyzeHarnesses([{ manifest: read.manifest, records: read.records }], { resamples: 10 }).judges.map((j) => j.judge),
    [JUDGE_A, JUDGE_B, 'offline'],
    'judges with TC scores come first',
  );
});

test("Markdown: the paper's tables, with hostile spec text escaped", () => {
  const md = renderMarkdown(model);
  for (const title of [
    'Scores by server',
    'Simple vs complex',
    'Dimension failure rates',
    'Argument sub-dimension failures',
    'Aggregation sensitivity',
    'Tool coverage and usage uniformity',
    'Schema complexity profile',
    'Coherence issue taxonomy',
    'Record-level agreement',
  ]) {
    assert.ok(md.includes(`### ${title}`), title);
  }
  assert.ok(!md.includes('<img'), 'no raw tag');
  assert.ok(!md.includes('</script>'));
  assert.ok(md.includes('&lt;img src=x onerror=alert(1)&gt;'));
  // Every table row has as many cells as its header (an escaped | does not split a cell).
  const rows = md.split('\n').filter((l) => l.startsWith('| '));
  const cells = (l: string) => l.split(/(?<!\\)\|/).length;
  for (const block of md.split('\n\n').filter((b) => b.startsWith('| '))) {
    const lines = block.split('\n').filter(Boolean);
    for (const l of lines) assert.equal(cells(l), cells(lines[0] as string), l);
  }
  assert.ok(rows.length > 40);
  assert.equal(escapeMarkdown('a|b\nc *d* [x](y) <i>'), 'a\\|b c \\*d\\* \\[x](y) &lt;i&gt;');
  // A leading block marker cannot open a heading or a nested list in the headline's list items.
  assert.equal(escapeMarkdown('# srv'), '\\# srv');
  assert.equal(escapeMarkdown('- srv'), '\\- srv');
  assert.equal(escapeMarkdown('12. srv'), '12\\. srv');
  assert.equal(escapeMarkdown('+0.125'), '+0.125', 'a signed number stays as it is');
});

test('HTML escaping helpers: JSON and inline script cannot end their element', () => {
  const json = jsonForHtml({ s: `${HOSTILE} & \u2028\u2029 <!--` });
  assert.ok(!/[<>&\u2028\u2029]/.test(json));
  assert.deepEqual(JSON.parse(json), { s: `${HOSTILE} & \u2028\u2029 <!--` });
  const code = scriptForHtml('var a = "</script><!--"; var b = /<\\/SCRIPT>/;');
  assert.ok(!/<\/script/i.test(code) && !code.includes('<!--'));
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs the escaped script to compare its value
  assert.equal(new Function(`${code}; return a;`)(), '</script><!--', 'same value after escaping');
  assert.throws(() => renderHtml(model, { nonce: 'x" onload="alert(1)', script: { inline: '' } }));
  assert.throws(() => renderHtml(model, { nonce: 'abcdefgh12345678', cspSource: "https://x; script-src 'unsafe-inline'", script: { inline: '' } }));
  // What VS Code hands a webview as `cspSource` is accepted and lands in style-src and img-src.
  const webview = renderHtml(model, { nonce: 'abcdefgh12345678', cspSource: 'https://*.vscode-cdn.net', script: { inline: '' } }).replace(/&#39;/g, "'");
  assert.ok(webview.includes("style-src https://*.vscode-cdn.net 'nonce-abcdefgh12345678'; img-src https://*.vscode-cdn.net data:"));
  assert.ok(webview.includes("script-src 'nonce-abcdefgh12345678';"), 'scripts stay nonce-only');
});

// ---- The page in headless Chromium (helpers in reportPage.ts) ----

after(async () => {
  await closeBrowser();
  for (const h of [fs, git]) if (h) rmSync(h.dir, { recursive: true, force: true });
});

test('the HTML report renders in Chromium under its CSP: figures drawn, no errors, hostile text inert', async () => {
  ensureBundle();
  const html = renderHtml(model);
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1]?.replace(/&#39;/g, "'");
  assert.match(csp ?? '', /^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]+'; style-src 'nonce-[A-Za-z0-9+/=]+'; img-src data:$/);
  assert.ok(!html.includes('<img'), 'hostile text is not in the markup');
  const { page, log } = await openReport(html, '/tmp/agent-seer-report-test.html');
  assert.deepEqual(log.errors, [], 'no console errors or warnings');
  assert.deepEqual(log.violations, [], 'no CSP violations');

  const figs = await figures(page);
  const expected = [
    'tc-hist',
    'coh-hist',
    'failure-rates',
    'workflow-0',
    'cooccurrence-0',
    'adjacency-0',
    'workflow-1',
    'cooccurrence-1',
    'adjacency-1',
    'tc-hist-0',
    'coh-hist-1',
    'agreement-scatter-tc-0',
    'agreement-ba-tc-0',
    'agreement-scatter-coh-0',
    'agreement-ba-coh-0',
  ];
  for (const id of expected) {
    assert.ok(figs[id], `figure ${id} present`);
    assert.equal(figs[id].empty, false, `figure ${id} has data`);
    assert.ok(figs[id].painted > 2000, `figure ${id} is drawn (${figs[id].painted} px)`);
  }
  const charts = Number(await page.evaluate(() => document.documentElement.dataset.charts));
  assert.equal(charts, Object.values(figs).filter((f) => !f.empty).length);

  // Hostile server and category names are shown as text and nothing ran.
  const state = await page.evaluate(() => ({
    imgs: document.querySelectorAll('img').length,
    alerts: (window as unknown as { __alerts: string[] }).__alerts,
    headings: Array.from<any>(document.querySelectorAll('h3')).map((h) => String(h.textContent ?? '')),
    cells: Array.from<any>(document.querySelectorAll('td')).map((td) => String(td.textContent ?? '')),
    scripts: document.scripts.length,
    tables: document.querySelectorAll('table').length,
  }));
  assert.equal(state.imgs, 0);
  assert.deepEqual(state.alerts, []);
  assert.equal(state.scripts, 2, 'the data block and the nonce script only');
  assert.ok(state.headings.includes(`fs ${HOSTILE}`));
  assert.ok(state.cells.includes(`Files ${HOSTILE}`), 'category shown verbatim');
  assert.ok(state.tables >= 15);
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  await page.close();
});

test('the same page works as a webview would load it: own nonce, cspSource, script by URL', async () => {
  ensureBundle();
  const nonce = 'cmVwb3J0LXdlYnZpZXctbm9uY2U=';
  const html = renderHtml(model, { nonce, cspSource: 'file:', script: { src: `file://${join(repoRoot, 'dist', 'report.js')}` } });
  assert.ok(html.includes(`<script nonce="${nonce}" src="file://`));
  assert.ok(html.replace(/&#39;/g, "'").includes(`style-src file: 'nonce-${nonce}'`));
  const { page, log } = await openReport(html, '/tmp/agent-seer-report-webview.html');
  assert.deepEqual(log.errors, []);
  assert.deepEqual(log.violations, []);
  const figs = await figures(page);
  assert.ok((figs['tc-hist']?.painted ?? 0) > 2000);
  assert.ok((figs['cooccurrence-1']?.painted ?? 0) > 2000);
  await page.close();
});

test('webview mode (data by message): the page waits, draws a posted report, and ignores malformed messages', async () => {
  ensureBundle();
  // As src/extension/reportPanel.ts renders it: own nonce, cspSource, script by URL, no data block.
  const nonce = 'bWVzc2FnZS1tb2RlLW5vbmNl';
  const html = renderHtml(model, { nonce, cspSource: 'file:', script: { src: `file://${join(repoRoot, 'dist', 'report.js')}` }, data: 'message' });
  assert.ok(!html.includes('report-data'), 'no data block in the page');
  assert.ok(!html.includes(HOSTILE) && !html.includes('<img'), 'no model text in the markup but the escaped title');
  const { page, log } = await loadPage(html, '/tmp/agent-seer-report-message.html');

  /** Posts messages from the page and resolves once the page's listeners have seen them all. */
  const post = (messages: unknown[]) =>
    page.evaluate(
      (ms: unknown[]) =>
        new Promise<void>((resolve) => {
          const done = (e: { data: unknown }) => {
            if (e.data !== '__flushed') return;
            window.removeEventListener('message', done);
            resolve();
          };
          window.addEventListener('message', done);
          for (const m of ms) window.postMessage(m, '*');
          window.postMessage('__flushed', '*');
        }),
      messages,
    );
  const state = () =>
    page.evaluate(() => ({
      ready: document.documentElement.dataset.ready ?? null,
      canvases: document.querySelectorAll('canvas').length,
      text: String(document.getElementById('report')?.textContent ?? ''),
    }));

  await post([
    { type: 'report', model: 5 },
    { type: 'report' },
    { type: 'report', model: null },
    { type: 'report', model: { structure: [], judges: [] } },
    { type: 'other', model: JSON.parse(JSON.stringify(model)) as unknown },
    'report',
    null,
  ]);
  const before = await state();
  assert.equal(before.ready, null, 'malformed messages draw nothing');
  assert.equal(before.canvases, 0);
  assert.match(before.text, /Loading the report/);
  assert.deepEqual(log.errors, [], 'malformed messages raise no errors');

  await post([{ type: 'report', model: JSON.parse(JSON.stringify(model)) as unknown }]);
  await whenDrawn(page, log);
  assert.deepEqual(log.errors, [], 'no console errors or warnings');
  assert.deepEqual(log.violations, [], 'no CSP violations');
  const figs = await figures(page);
  for (const id of ['tc-hist', 'coh-hist', 'failure-rates', 'workflow-0', 'cooccurrence-1', 'adjacency-1', 'agreement-scatter-tc-0', 'agreement-ba-coh-0']) {
    assert.equal(figs[id]?.empty, false, `figure ${id} has data`);
    assert.ok((figs[id]?.painted ?? 0) > 2000, `figure ${id} is drawn (${figs[id]?.painted} px)`);
  }
  const after = await page.evaluate(() => ({
    scripts: document.scripts.length,
    headings: Array.from<any>(document.querySelectorAll('h3')).map((h) => String(h.textContent ?? '')),
    alerts: (window as unknown as { __alerts: string[] }).__alerts,
  }));
  assert.equal(after.scripts, 1, 'the page script only');
  assert.ok(after.headings.includes(`fs ${HOSTILE}`), 'hostile server name shown as text');
  assert.deepEqual(after.alerts, []);

  // A malformed message after a good one leaves the drawn report as it is.
  await post([{ type: 'report', model: 5 }]);
  assert.equal((await state()).ready, 'true');
  assert.deepEqual(log.errors, []);
  await page.close();
});
