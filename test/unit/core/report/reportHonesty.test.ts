/**
 * The report tells the truth about offline scores: an offline harness of a real fixture spec
 * (slack.json), judged by the real offline judge, then reported alone, beside a judge that scores
 * TC and coherence, and beside one that stores the same exact facts (as an LLM judge does).
 * Checked: Table 9's mock-output grounding tiers counted from the records, next to the paper's
 * figures; the exact score shown with what it covers and cannot see (Markdown and the HTML page);
 * no table, column, figure or agreement section of a score nobody gave; no advice to run a judge
 * that already ran; the judge command's summary says the same of its "exact args".
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- browser globals inside page.evaluate callbacks (this file compiles without the DOM lib) */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HarnessRecord, Judgment } from '../../../../src/core/harness/format';
import { readHarness, writeHarness } from '../../../../src/core/harness/store';
import { judgeHarness, type JudgeSummary } from '../../../../src/core/judge';
import { judgeSummaryText } from '../../../../src/cli/commands/judge';
import { generateOffline, offlineManifest } from '../../../../src/core/pipeline/offline';
import { analyzeHarnesses, PAPER_MOCK_GROUNDING, type HarnessInput } from '../../../../src/core/report/analyze';
import { EXACT_SCOPE } from '../../../../src/core/report/exactScope';
import { renderHtml } from '../../../../src/core/report/render/html';
import { escapeMarkdown, renderMarkdown } from '../../../../src/core/report/render/markdown';
import { headline, reportTables } from '../../../../src/core/report/tables';
import { ReportModel } from '../../../../src/core/report/schema';
import type { Spec } from '../../../../src/core/spec/model';
import { loadFixtureSpec } from '../../fixturePaths';
import { closeBrowser, ensureBundle, figures, openReport } from './reportPage';
import { JUDGE_A, syntheticJudgment } from './reportSetup.test';

declare const document: any;

/** Tables a judge without TC or coherence must not show (they would be all dashes, or the exact score passing for TC). */
const TC_COH_TABLES = [
  'Scores by server',
  'Simple vs complex',
  'Dimension failure rates',
  'Mean dimension scores',
  'Argument sub-dimension failures',
  'Aggregation sensitivity',
  'Rank agreement of aggregation rules',
  'Coherence aspects',
  'Coherence issue taxonomy',
  'Lowest-scoring tools',
];
const EXACT_TABLES = ['Value grounding (exact)', 'Exact argument score by sub-dimension', 'Failing records (exact)'];

let dir: string;
let spec: Spec;
let records: HarnessRecord[];
let input: HarnessInput;

before(async () => {
  spec = loadFixtureSpec('slack.json');
  const gen = { seed: 3, simple: 5, complex: 4 };
  const result = generateOffline(spec, gen);
  const manifest = offlineManifest(spec, gen, result, { startedAt: '2026-06-01T09:00:00.000Z', finishedAt: '2026-06-01T09:00:01.000Z', durationMs: 1000 });
  dir = mkdtempSync(join(tmpdir(), 'agent-seer-honesty-'));
  await writeHarness(dir, manifest, result.records);
  await judgeHarness(dir, { judges: [{ id: 'offline' }], spec });
  const read = await readHarness(dir);
  assert.deepEqual(read.problems, []);
  records = read.records;
  assert.ok(
    records.every((r) => r.judgments?.offline),
    'every record judged offline',
  );
  input = { dir, manifest: read.manifest, records, spec };
});

after(async () => {
  await closeBrowser();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The Markdown's `### ` table titles under each `## ` section. */
function outline(md: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let section = '';
  for (const line of md.split('\n')) {
    if (line.startsWith('## ')) out.set((section = line.slice(3)), []);
    else if (line.startsWith('### ')) out.get(section)?.push(line.slice(4));
  }
  return out;
}

/** Every pipe table of the Markdown as rows of cells (header first, the alignment row dropped). */
function tablesOf(md: string): string[][][] {
  return md
    .split('\n\n')
    .filter((b) => b.startsWith('| '))
    .map((b) =>
      b
        .split('\n')
        .filter((l, i) => l.startsWith('| ') && i !== 1)
        .map((l) =>
          l
            .replace(/^\|\s*|\s*\|$/g, '')
            .split(/\s*(?<!\\)\|\s*/)
            .map((c) => c.replace(/\\/g, '')),
        ),
    );
}

/** No table has a data row, or a column, of nothing but dashes (a panel that shows nothing). */
function assertNoDashPanels(md: string): void {
  for (const [header, ...rows] of tablesOf(md)) {
    assert.ok(rows.length > 0, `table ${header?.join(' | ')} has rows`);
    for (const r of rows)
      assert.ok(
        r.slice(1).some((c) => c !== '—'),
        `a row of dashes: ${r.join(' | ')}`,
      );
    header?.forEach((h, i) => {
      if (i > 0)
        assert.ok(
          rows.some((r) => r[i] !== '—'),
          `column ${h} of ${header.join(' | ')} is all dashes`,
        );
    });
  }
  assert.ok(!md.includes('_No data._'), 'no "No data." table');
  assert.ok(!/\bn = 0\b/.test(md), 'no "n = 0"');
}

test("Table 9: mock outputs by grounding tier, counted from the records, beside the paper's figures", () => {
  // The offline generator has no example outputs: every output is low, as in the paper.
  const outputs = records.reduce((n, r) => n + r.mock_outputs.length, 0);
  assert.ok(outputs > records.length, 'chains of calls');
  assert.ok(records.every((r) => r.mock_outputs.every((m) => m.grounding === 'low')));
  // Plant other tiers, as a model-made harness with example outputs would have.
  const planted = records.map((r, i) => ({
    ...r,
    mock_outputs: r.mock_outputs.map((m, k) => ({ ...m, grounding: i === 0 && k === 0 ? ('high' as const) : i === 1 ? ('medium' as const) : m.grounding })),
  }));
  const medium = planted[1]?.mock_outputs.length ?? 0;
  assert.ok(medium >= 1);
  const m = analyzeHarnesses([{ ...input, records: planted }], { resamples: 50 });
  const g = m.structure[0]?.mockGrounding;
  assert.ok(g);
  assert.deepEqual({ outputs: g.outputs, high: g.high, medium: g.medium, low: g.low }, { outputs, high: 1, medium, low: outputs - 1 - medium });
  assert.equal(
    g.outputSchema,
    records.reduce((n, r) => n + r.mock_outputs.filter((o) => o.outputSchema).length, 0),
  );
  // The paper's figures, carried over exactly: Appendix A.4, 871 mock calls, all low.
  assert.deepEqual(g.paper, { outputs: 871, high: 0, medium: 0, low: 871 });
  assert.deepEqual(PAPER_MOCK_GROUNDING, g.paper);
  assert.doesNotThrow(() => ReportModel.parse(m));

  const md = renderMarkdown(m);
  const share = (n: number) => `${n} (${Math.round((n / outputs) * 100)}%)`;
  const table = tablesOf(md.slice(md.indexOf('### Mock-output grounding tiers')))[0];
  assert.ok(table, 'the table is in the Markdown');
  assert.deepEqual(table[0], ['Server', 'Mock outputs', 'High', 'Medium', 'Low', 'With outputSchema']);
  assert.deepEqual(table[1]?.slice(0, 5), ['Slack MCP Server', String(outputs), share(1), share(medium), share(outputs - 1 - medium)]);
  assert.deepEqual(table[2], ['The paper (Appendix A.4; 7 servers)', '871', '0 (0%)', '0 (0%)', '871 (100%)', '—']);
  assert.match(md, /Appendix A\.4, where Table 9 defines the tiers/);
});

test('offline judge only: the exact score says what it covers and cannot see; nothing empty is shown', async () => {
  const m = analyzeHarnesses([input], { resamples: 200 });
  assert.deepEqual(
    m.judges.map((j) => j.judge),
    ['offline'],
  );
  assert.equal(m.agreement.length, 0);
  const md = renderMarkdown(m);
  const sections = outline(md);
  const scores = sections.get('Scores — judge offline');
  assert.deepEqual(scores, EXACT_TABLES, 'the offline section is its exact tables and nothing else');
  for (const t of TC_COH_TABLES) assert.ok(!md.includes(`### ${t}`), `no ${t}`);
  assert.ok(![...sections.keys()].some((s) => s.startsWith('Judge agreement')));
  assertNoDashPanels(md);

  // The headline's exact figure is followed by what it covers; so is the exact table's caption.
  const lines = md.split('\n');
  const exactLine = lines.findIndex((l) => /^- Slack MCP Server: n=\d+, exact 1\.000 \(values grounded 100%, determined 100%\)$/.test(l));
  assert.ok(exactLine > 0, 'the headline: no TC or Coh dashes, the exact score and grounding');
  assert.equal(lines[exactLine + 1], `- ${escapeMarkdown(EXACT_SCOPE)}`);
  assert.match(EXACT_SCOPE, /completeness, names, value grounding, types, formats and relevancy/);
  assert.match(EXACT_SCOPE, /cannot see the realism of the scenario, the coherence of the dialogue, or whether the right tool was chosen/);
  const caption = lines[lines.indexOf('### Exact argument score by sub-dimension') + 2] ?? '';
  assert.ok(caption.startsWith(escapeMarkdown(EXACT_SCOPE)), 'the caption starts with the caveat');
  // No offline score is called good: no quality wording, and the advice names the judge still to run.
  assert.doesNotMatch(md, /\b(good|excellent|quality score of)\b/i);
  assert.ok(m.warnings.some((w) => /exact argument checks only .*agent-seer judge HARNESS_DIR --judge gemini:/.test(w)));

  // The HTML page: the same tables, the caveat, no TC or Coh figure (the failure-rate bars are green for "perfect").
  ensureBundle();
  const { page, log } = await openReport(renderHtml(m), '/tmp/agent-seer-report-honesty.html');
  assert.deepEqual(log.errors, []);
  assert.deepEqual(log.violations, []);
  const figs = await figures(page);
  const shown = await page.evaluate(() => ({
    h2: Array.from<any>(document.querySelectorAll('h2')).map((h) => String(h.textContent ?? '')),
    h3: Array.from<any>(document.querySelectorAll('h3')).map((h) => String(h.textContent ?? '')),
    text: String(document.getElementById('report')?.textContent ?? ''),
    notes: Array.from<any>(document.querySelectorAll('.note')).map((n) => String(n.textContent ?? '')),
    headline: Array.from<any>(document.querySelectorAll('.headline li')).map((n) => String(n.textContent ?? '')),
  }));
  await page.close();
  for (const id of ['tc-hist', 'coh-hist', 'failure-rates']) assert.equal(figs[id], undefined, `no figure ${id}`);
  assert.deepEqual(
    Object.entries(figs)
      .filter(([, f]) => f.empty)
      .map(([id]) => id),
    [],
    'no empty figure panel',
  );
  assert.ok(shown.h2.includes('Figures'), 'figures of the harness, not of a judge');
  for (const t of EXACT_TABLES) assert.ok(shown.h3.includes(t), t);
  for (const t of TC_COH_TABLES) assert.ok(!shown.h3.includes(t), `no ${t} on the page`);
  assert.ok(shown.h3.includes('Mock-output grounding tiers'));
  assert.ok(shown.text.includes(EXACT_SCOPE), 'the caveat on the page');
  assert.deepEqual(shown.headline, headline(m), 'the page opens with the same headline as the Markdown');
  assert.equal(shown.headline.at(-1), EXACT_SCOPE, 'the exact figures followed by what they cover');
  assert.match(shown.notes.join('\n'), /Judge offline scored exact argument checks only: no TC and no coherence/);
  assert.ok(!shown.text.includes('No data.'));
});

test('an LLM judge and the offline judge: no agreement of n = 0, no advice to run a judge again, no offline section of dashes', () => {
  // A judge that scores TC and coherence but stores no exact facts (the synthetic judge), beside the offline judge.
  const both = records.map((r) => ({ ...r, judgments: { ...r.judgments, [JUDGE_A]: syntheticJudgment(r, JUDGE_A) } }));
  const m = analyzeHarnesses([{ ...input, records: both }], { resamples: 200 });
  assert.deepEqual(
    m.judges.map((j) => j.judge),
    [JUDGE_A, 'offline'],
  );
  assert.equal(m.agreement.length, 0, 'the offline judge has no TC or Coh to agree on');
  assert.ok(!m.warnings.some((w) => /HARNESS_DIR|--judge gemini|exact argument checks only/.test(w)), 'no advice to run a judge that ran');
  assert.ok(!m.warnings.some((w) => w.startsWith('Unscored')), 'the offline judge is not "unscored"');
  const md = renderMarkdown(m);
  const sections = outline(md);
  assert.ok(![...sections.keys()].some((s) => s.startsWith('Judge agreement')));
  assert.deepEqual(sections.get('Scores — judge offline'), EXACT_TABLES, 'the offline section shows only what it has');
  const llm = sections.get(`Scores — judge ${JUDGE_A}`) ?? [];
  for (const t of TC_COH_TABLES) assert.ok(llm.includes(t), `${t} under the judge that gave TC and Coh`);
  for (const t of EXACT_TABLES) assert.ok(!llm.includes(t), `no ${t}: that judge stored no exact facts`);
  assertNoDashPanels(md);
  // The headline is the primary judge's: TC and Coh, and no exact figure it does not have.
  assert.ok(
    md
      .split('\n')
      .some(
        (l) => /^- Slack MCP Server: n=\d+, TC 0\.\d{3} \\\[0\.\d{3}, [01]\.\d{3}\] \((below|within|above) paper range\), Coh /.test(l) && !l.includes('exact'),
      ),
  );
});

test('an LLM judge storing the same exact facts: the offline section is one line pointing to them', () => {
  // As an LLM judge stores them: its TC and Coh, and the exact checks' facts, the same as the offline judge's.
  const exactOf = (j: unknown) => {
    const x = j as Record<string, unknown> | undefined;
    return { exact: x?.exact ?? null, exactArguments: x?.exactArguments, grounding: x?.grounding, determinacy: x?.determinacy, findings: x?.findings };
  };
  const withExact = records.map((r) => {
    const off = r.judgments?.offline as { conversation?: unknown } | undefined;
    const s = syntheticJudgment(r, 'gemini:fake') as Judgment & { conversation?: Judgment };
    const j = { ...s, ...exactOf(off), ...(s.conversation ? { conversation: { ...s.conversation, ...exactOf(off?.conversation) } } : {}) } as Judgment;
    return { ...r, judgments: { ...r.judgments, 'gemini:fake': j } };
  });
  const m = analyzeHarnesses([{ ...input, records: withExact }], { resamples: 200 });
  assert.deepEqual(
    m.judges.map((j) => j.judge),
    ['gemini:fake', 'offline'],
  );
  assert.deepEqual(m.judges[0]?.servers[0]?.exactArguments, m.judges[1]?.servers[0]?.exactArguments, 'the same exact facts');
  const offline = reportTables(m).find((s) => s.title === 'Scores — judge offline');
  assert.ok(offline);
  assert.deepEqual(offline.tables, [], 'no copy of the tables');
  assert.deepEqual(offline.notes, ['Judge offline scored exact argument checks only; its exact figures are those shown under judge gemini:fake above.']);
  const md = renderMarkdown(m);
  assert.deepEqual(outline(md).get('Scores — judge gemini:fake')?.slice(1, 4), EXACT_TABLES, 'the exact tables, once, after the scores');
  assert.equal(md.split('### Value grounding (exact)').length, 2, 'shown once');
  assert.equal(m.agreement.length, 0);
  assertNoDashPanels(md);
});

test("the judge command's summary: the exact score with what it cannot see; advice to run an LLM judge only when none ran", () => {
  const summary = (id: string, meanTc: number | null): JudgeSummary => ({
    id,
    judged: 4,
    notJudged: 0,
    skipped: 0,
    meanTc,
    meanCoh: meanTc,
    meanExact: 1,
    views: 5,
    scoredTc: meanTc === null ? 0 : 5,
    scoredCoh: meanTc === null ? 0 : 5,
    disagreements: 0,
    llmCalls: 0,
    cacheHits: 0,
    reasks: 0,
    inputTokens: 0,
    outputTokens: 0,
  });
  const alone = judgeSummaryText({ records: 4, judges: [summary('offline', null)], problems: [] }, 'h');
  assert.match(alone, /"exact args" \(offline\) = a program's checks of argument completeness, names, value grounding, types, formats and relevancy/);
  assert.match(
    alone,
    /not TC and not a quality score: it cannot see the realism of the scenario, the coherence of the dialogue, or whether the right tool was chosen/,
  );
  assert.match(alone, /add --judge gemini:/);
  const both = judgeSummaryText({ records: 4, judges: [summary('offline', null), summary('gemini:gemini-2.5-flash', 0.8)], problems: [] }, 'h');
  assert.match(both, /not a quality score/);
  assert.doesNotMatch(both, /add --judge/, 'no advice to run the judge that just ran');
});
