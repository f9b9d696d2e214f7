/**
 * A report that leads to the fix: it opens on the worst scenarios (the planted failing records
 * first, with the arguments at fault and the judge's notes), cues TC and Coh against the paper's
 * Table 3 ranges in words (never colour alone, never for an exact score), draws a 200-tool graph
 * as its busiest tools with a note of the rest and labels that never overlap, and says one
 * multi-turn rate in the CLI's generate summary and in the report. Real offline harnesses of
 * fixture specs, judged by the real offline judge; the page in a real Chromium.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- browser globals inside page.evaluate callbacks (this file compiles without the DOM lib) */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { readHarness, writeHarness } from '../../../../src/core/harness/store';
import { judgeHarness } from '../../../../src/core/judge';
import { generateOffline, offlineManifest } from '../../../../src/core/pipeline/offline';
import { analyzeHarnesses, type HarnessInput } from '../../../../src/core/report/analyze';
import { capGraph, GRAPH_NODE_CAP, placeLabels, sharedPrefix } from '../../../../src/core/report/graphCap';
import { PAPER_EXPANSION_RATE } from '../../../../src/core/report/multiTurnRate';
import { CUE_WORDS, PAPER_RANGES, rangeCue } from '../../../../src/core/report/reference';
import { renderHtml } from '../../../../src/core/report/render/html';
import { renderMarkdown } from '../../../../src/core/report/render/markdown';
import { ReportModel } from '../../../../src/core/report/schema';
import { reportTables } from '../../../../src/core/report/tables';
import { multiTurnLine } from '../../../../src/cli/generateSummary';
import { run } from '../../../../src/cli/main';
import type { Spec } from '../../../../src/core/spec/model';
import { loadFixtureSpec } from '../../fixturePaths';
import { closeBrowser, ensureBundle, openReport } from './reportPage';
import { JUDGE_A, syntheticJudgment } from './reportSetup.test';

declare const document: any;

const dirs: string[] = [];

/** An offline harness of a fixture spec, optionally edited before the offline judge reads it. */
async function harness(file: string, gen: { seed: number; simple: number; complex: number }, edit?: (rs: HarnessRecord[]) => void) {
  const spec: Spec = loadFixtureSpec(file);
  const result = generateOffline(spec, gen);
  edit?.(result.records);
  const manifest = offlineManifest(spec, gen, result, { startedAt: '2026-06-01T09:00:00.000Z', finishedAt: '2026-06-01T09:00:01.000Z', durationMs: 1000 });
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-leads-'));
  dirs.push(dir);
  await writeHarness(dir, manifest, result.records);
  await judgeHarness(dir, { judges: [{ id: 'offline' }], spec });
  const read = await readHarness(dir);
  assert.deepEqual(read.problems, []);
  return { input: { dir, manifest: read.manifest, records: read.records, spec } as HarnessInput, result };
}

/** The planted faults: an invented id where the record had a value from the user's words or an output. */
const PLANTED = 'ZZPLANTED';
const planted = new Map<string, { call: number; tool: string; param: string }>();
let slack: HarnessInput;

before(async () => {
  ({ input: slack } = await harness('slack.json', { seed: 3, simple: 5, complex: 4 }, (rs) => {
    // The two records of the highest ids: planted failures must be listed first whatever the id order.
    for (const r of [...rs].sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, 2)) {
      for (const [call, c] of r.expected_tools.entries()) {
        const param = Object.keys(c.arguments).find((k) => typeof c.arguments[k] === 'string' && /id|channel|user/i.test(k));
        if (!param) continue;
        c.arguments[param] = `${PLANTED}${call}${r.id.length}`;
        planted.set(r.id, { call, tool: c.name, param });
        break;
      }
    }
  }));
  assert.equal(planted.size, 2, 'two records planted');
});

after(async () => {
  await closeBrowser();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('worst scenarios first: the planted failing records, with the arguments at fault, in JSON, Markdown and HTML', async () => {
  const m = analyzeHarnesses([slack], { resamples: 200 });
  assert.equal(ReportModel.safeParse(m).success, true, 'the model matches its schema');
  assert.equal(m.worst.judge, 'offline');
  assert.equal(m.worst.by, 'exact', 'no TC from the offline judge: ranked by the exact score');
  const top = m.worst.scenarios.slice(0, 2);
  assert.deepEqual(new Set(top.map((w) => w.record)), new Set(planted.keys()), 'the planted records lead');
  for (const w of top) {
    const p = planted.get(w.record);
    assert.ok(p);
    assert.ok(w.score !== null && w.score < 1);
    assert.equal(w.file, `records/${w.record}.json`);
    assert.deepEqual(w.notes, [], 'no LLM rationale from the offline judge');
    const fault = w.faults.find((f) => f.param === p.param);
    assert.ok(fault, `the argument at fault ${p.param} of ${w.record}: ${JSON.stringify(w.faults)}`);
    assert.equal(fault.call, p.call);
    assert.equal(fault.tool, p.tool);
    assert.ok(fault.kind && fault.reason.length > 0);
  }
  // Lowest score first, then more findings.
  for (let i = 1; i < m.worst.scenarios.length; i++) {
    const a = m.worst.scenarios[i - 1];
    const b = m.worst.scenarios[i];
    assert.ok(a && b && ((a.score ?? 2) < (b.score ?? 2) || ((a.score ?? 2) === (b.score ?? 2) && a.findings >= b.findings)));
  }

  // Markdown: the first section after the warnings, with the parameter at fault.
  const md = renderMarkdown(m);
  const h2 = md.split('\n').filter((l) => l.startsWith('## '));
  assert.equal(h2[0], '## Worst scenarios');
  assert.equal(reportTables(m)[0]?.id, 'worst');
  const worstMd = md.slice(md.indexOf('## Worst scenarios'), md.indexOf(h2[1] ?? '\u0000'));
  for (const [id, p] of planted) {
    const row = worstMd.split('\n').find((l) => l.includes(id.replace(/[-_]/g, (c) => (c === '_' ? '\\_' : c))));
    assert.ok(row, `row of ${id}`);
    assert.ok(row.includes(`call ${p.call + 1} ${p.tool.replace(/_/g, '\\_')} · ${p.param.replace(/_/g, '\\_')}`), row);
  }

  // HTML: the section opens the page (before the figures), the record ids link to records/<id>.json.
  ensureBundle();
  const { page, log } = await openReport(renderHtml(m), '/tmp/agent-seer-report-leads.html');
  assert.deepEqual(log.errors, []);
  assert.deepEqual(log.violations, []);
  const shown = await page.evaluate(() => ({
    order: Array.from<any>(document.querySelectorAll('#report > section')).map((s) => String(s.id)),
    links: Array.from<any>(document.querySelectorAll('#s-worst td a')).map((a) => String(a.getAttribute('href'))),
  }));
  await page.close();
  assert.ok(shown.order.indexOf('s-worst') >= 0 && shown.order.indexOf('s-worst') < shown.order.indexOf('s-figures'), shown.order.join(','));
  assert.deepEqual(
    shown.links.slice(0, 2),
    top.map((w) => w.file),
  );
});

test('worst scenarios under an LLM judge: by TC, with its notes; nothing failing is one line', () => {
  const ids = slack.records.map((r) => r.id);
  const worstId = ids[ids.length - 1] ?? '';
  const records = slack.records.map((r) => {
    const j = syntheticJudgment(r, JUDGE_A);
    return { ...r, judgments: { [JUDGE_A]: r.id === worstId ? { ...j, tc: 0.01, notes: ['the planted rationale'] } : j } };
  });
  const m = analyzeHarnesses([{ ...slack, records }], { resamples: 200 });
  assert.equal(m.worst.by, 'tc');
  assert.equal(m.worst.scenarios[0]?.record, worstId);
  assert.equal(m.worst.scenarios[0]?.score, 0.01);
  assert.ok(m.worst.scenarios[0]?.notes.includes('the planted rationale'));
  assert.ok(m.worst.scenarios.length <= 10);
  assert.match(renderMarkdown(m), /\| Judge's notes \|/);

  // Every record perfect: one line says so.
  const perfect = slack.records.map((r) => {
    const j = syntheticJudgment(r, JUDGE_A);
    return {
      ...r,
      judgments: { [JUDGE_A]: { ...j, tc: 1, ...('conversation' in j && j.conversation ? { conversation: { ...j.conversation, tc: 1 } } : {}) } },
    };
  });
  const ok = analyzeHarnesses([{ ...slack, records: perfect }], { resamples: 50 });
  assert.deepEqual(ok.worst.scenarios, []);
  const section = reportTables(ok)[0];
  assert.equal(section?.id, 'worst');
  assert.equal(section?.tables.length, 0);
  assert.match(section?.notes?.[0] ?? '', /^Nothing fails: every scenario scores 1 under judge/);
});

test("reference ranges: the paper's Table 3 figures, cue words beside TC and Coh, none beside an exact score", async () => {
  assert.deepEqual(PAPER_RANGES, {
    tc: { low: 0.857, lowServer: 'Git', high: 0.966, highServer: 'Redis' },
    coh: { low: 0.757, lowServer: 'Git', high: 0.938, highServer: 'Slack' },
  });
  assert.equal(rangeCue(0.85, PAPER_RANGES.tc), 'below');
  assert.equal(rangeCue(0.857, PAPER_RANGES.tc), 'within');
  assert.equal(rangeCue(0.9664, PAPER_RANGES.tc), 'within', 'to the 3 decimals shown');
  assert.equal(rangeCue(0.97, PAPER_RANGES.tc), 'above');
  assert.equal(rangeCue(0.94, PAPER_RANGES.coh), 'above');
  assert.equal(rangeCue(null, PAPER_RANGES.coh), null);

  // An LLM judge: each server mean of TC and Coh carries its word, in the headline and the scores table.
  const records = slack.records.map((r) => ({ ...r, judgments: { [JUDGE_A]: syntheticJudgment(r, JUDGE_A) } }));
  const m = analyzeHarnesses([{ ...slack, records }], { resamples: 200 });
  const s = m.judges[0]?.servers[0];
  assert.ok(s && s.tc.mean !== null && s.coh.mean !== null);
  const tcWord = CUE_WORDS[rangeCue(s.tc.mean, PAPER_RANGES.tc) ?? 'within'];
  const cohWord = CUE_WORDS[rangeCue(s.coh.mean, PAPER_RANGES.coh) ?? 'within'];
  const md = renderMarkdown(m);
  assert.ok(md.includes(`(${tcWord})`) && md.includes(`(${cohWord})`), `${tcWord} / ${cohWord}`);
  assert.match(md, /TC from 0\.857 \(Git\) to 0\.966 \(Redis\) and of Coh from 0\.757 \(Git\) to 0\.938 \(Slack\)/);
  const scores = reportTables(m)
    .flatMap((x) => x.tables)
    .find((t) => t.title === 'Scores by server');
  const tcCol = scores?.headers.indexOf('TC [95% CI]') ?? -1;
  assert.ok(scores?.rows[0]?.[tcCol]?.endsWith(`(${tcWord})`));
  assert.equal(scores?.cues?.[0]?.[tcCol], rangeCue(s.tc.mean, PAPER_RANGES.tc));

  // The page: a class and a symbol as well as the word.
  ensureBundle();
  const { page, log } = await openReport(renderHtml(m), '/tmp/agent-seer-report-cues.html');
  assert.deepEqual(log.errors, []);
  const cued = await page.evaluate(() =>
    Array.from<any>(document.querySelectorAll('td.cue')).map((td) => ({ cls: String(td.className), text: String(td.textContent) })),
  );
  await page.close();
  assert.ok(cued.length >= 2, 'TC and Coh cells cued');
  for (const c of cued) {
    const cue = /cue-(below|within|above)/.exec(c.cls)?.[1] as 'below' | 'within' | 'above' | undefined;
    assert.ok(cue, c.cls);
    assert.ok(c.text.includes(CUE_WORDS[cue]) && /^[▼●▲] /.test(c.text), c.text);
  }

  // Offline only: no cue, no range, never "good".
  const off = renderMarkdown(analyzeHarnesses([slack], { resamples: 50 }));
  assert.doesNotMatch(off, /paper range|\bgood\b/i);
});

test('a 197-tool harness: the graphs draw at most the cap, say what is left out, and labels never overlap', async () => {
  const { input } = await harness('twilio-api-v2010.json', { seed: 1, simple: 4, complex: 4 });
  const m = analyzeHarnesses([input], { resamples: 50 });
  const st = m.structure[0];
  assert.ok(st && (st.profile?.tools ?? 0) > 150, 'a large spec');
  for (const edges of [st.cooccurrence, st.adjacency]) {
    const g = capGraph(edges);
    assert.ok(g.nodes.length <= GRAPH_NODE_CAP);
    assert.ok(g.leftOut.length > 0, 'tools left out');
  }
  assert.equal(sharedPrefix(['TwilioApiV2010--ListAccount', 'TwilioApiV2010--FetchCall']), 'TwilioApiV2010--');
  assert.equal(sharedPrefix(['a', 'a-b']), '', 'never a name left empty');

  // Labels: 235 candidates crowded into a small box; the placed ones never overlap or leave it.
  const candidates = Array.from({ length: 235 }, (_, i) => ({
    index: i,
    x: 20 + ((i * 37) % 400),
    y: 20 + ((i * 53) % 300),
    width: 60 + (i % 5) * 10,
    height: 12,
  }));
  const area = { left: 0, top: 0, right: 500, bottom: 360 };
  const placed = placeLabels(candidates, area, 6);
  assert.ok(placed.length > 10 && placed.length < 235);
  for (const [i, a] of placed.entries()) {
    assert.ok(a.x >= 0 && a.y >= 0 && a.x + a.width <= 500 && a.y + a.height <= 360);
    for (const b of placed.slice(i + 1))
      assert.ok(a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y, 'no overlap');
  }
  assert.equal(placed[0]?.index, 0, 'the busiest label is placed first');

  // The page: the note of what was left out under both graphs.
  ensureBundle();
  const { page, log } = await openReport(renderHtml(m), '/tmp/agent-seer-report-graphs.html');
  assert.deepEqual(log.errors, []);
  const captions = await page.evaluate(() => Array.from<any>(document.querySelectorAll('figcaption')).map((f) => String(f.textContent)));
  await page.close();
  const notes = captions.filter((c) => /The \d+ tools of highest weight are drawn; \d+ more are left out and listed under the graph\./.test(c));
  assert.equal(notes.length, 2, captions.join('\n'));
  for (const n of notes) {
    assert.ok(Number(/The (\d+) tools/.exec(n)?.[1]) <= GRAPH_NODE_CAP);
    assert.match(n, /Labels never overlap/);
    assert.match(n, /without the prefix all of them share, "TwilioApiV2010--"/);
  }
});

test("one multi-turn rate: the generate summary and the report say the same value, beside the paper's 16%", async () => {
  // git-official: 12 scenarios, 8 multi-call, 6 multi-turn (50% over all scenarios, 75% over multi-call ones).
  const { input, result } = await harness('git-official.json', { seed: 5, simple: 6, complex: 6 });
  const c = result.manifestCounts;
  assert.ok(c);
  const m = analyzeHarnesses([input], { resamples: 50 });
  const e = m.structure[0]?.expansion;
  assert.ok(e && e.rate !== null);
  assert.equal(e.rate, c.multiTurn / c.records, 'the report: over all scenarios');
  assert.ok(c.multiCall < c.records, 'a harness where the two bases differ');
  assert.equal(e.paperRate, PAPER_EXPANSION_RATE);
  const line = multiTurnLine(c.multiTurn, c.records, c.multiCall);
  const cliPct = /\((\d+)%; the paper: 16%, 54 of 337 scenarios\)/.exec(line)?.[1];
  const table5 = reportTables(m)
    .flatMap((s) => s.tables)
    .find((t) => t.headers.includes('Multi-turn (paper 16%)'));
  const cell = table5?.rows[0]?.[table5.headers.indexOf('Multi-turn (paper 16%)')] ?? '';
  const reportPct = /\((\d+)%\)/.exec(cell)?.[1];
  assert.ok(cliPct && reportPct, `${line} / ${cell}`);
  assert.equal(cliPct, reportPct, 'the same rate in both');
  assert.equal(Number(cliPct), Math.round((c.multiTurn / c.records) * 100));
  assert.match(table5?.caption ?? '', /multi-turn scenarios of all scenarios, the paper's base \(its 16% = 54 of 337 scenarios\)/);
});

test('the worst scenarios link their record files from wherever the report is written', async () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'agent-seer-leads-out-'));
  dirs.push(elsewhere);
  const hrefs = (text: string, pattern: RegExp): string[] => [...text.matchAll(pattern)].map((m) => m[1]!).filter((h) => h.endsWith('.json'));
  const io = (cwd: string, out: string[]) => ({ out: (s: string) => out.push(s), err: () => undefined, cwd, env: {} });
  // A report written to another folder (its JSON: what the HTML page draws its links from) and one printed from a third folder (Markdown).
  const json = join(elsewhere, 'nested', 'report.json');
  assert.equal(await run(['report', slack.dir!, '--format', 'json', '--out', json], io(elsewhere, [])), 0);
  const htmlLinks = (JSON.parse(readFileSync(json, 'utf8')) as ReportModel).worst.scenarios.map((w) => w.link ?? '');
  const printed: string[] = [];
  assert.equal(await run(['report', slack.dir!, '--format', 'md'], io(elsewhere, printed)), 0);
  const mdLinks = hrefs(printed.join('\n'), /\]\(([^)]+)\)/g);
  for (const [from, links] of [
    [join(elsewhere, 'nested'), htmlLinks],
    [elsewhere, mdLinks],
  ] as const) {
    assert.ok(links.length >= 2, `links found: ${links.join(', ')}`);
    for (const l of links) assert.ok(existsSync(resolve(from, l)), `${l} resolves from ${from}`);
  }
  assert.ok(
    htmlLinks.every((l) => l.startsWith('../')),
    'from another folder, not records/… of the harness',
  );
});
