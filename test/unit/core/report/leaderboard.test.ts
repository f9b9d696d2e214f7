/**
 * The leaderboard: two scripted agents run with the real `agent-seer run` against the fake
 * Gemini and OpenAI servers — an oracle and one that changes the first argument of every call —
 * read back from disk, re-scored and ranked; its Markdown, and its tables in the HTML page in
 * headless Chromium under the page's CSP.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- browser globals inside page.evaluate callbacks (this file compiles without the DOM lib) */
import assert from 'node:assert/strict';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readRuns } from '../../../../src/core/agents/readRuns';
import { Trajectory } from '../../../../src/core/agents/trajectory';
import { findHarnessSpec } from '../../../../src/core/harness/specLookup';
import { readHarness } from '../../../../src/core/harness/store';
import { analyzeHarnesses, type HarnessInput } from '../../../../src/core/report/analyze';
import { renderHtml } from '../../../../src/core/report/render/html';
import { renderMarkdown } from '../../../../src/core/report/render/markdown';
import { ReportModel } from '../../../../src/core/report/schema';
import { agentRunsDir, runTwoAgents, type TwoAgentRuns } from '../../agentRuns';
import { closeBrowser, ensureBundle, openReport } from './reportPage';

declare const document: any;

let t: TwoAgentRuns;
let input: HarnessInput;

async function harnessInput(dir: string): Promise<HarnessInput> {
  const read = await readHarness(dir);
  const found = await findHarnessSpec(dir, read.manifest, {});
  assert.ok(found.ok);
  return { dir, manifest: read.manifest, records: read.records, spec: found.spec, runs: (await readRuns(dir)).agents };
}

before(async () => {
  t = await runTwoAgents('agent-seer-board-');
  input = await harnessInput(t.harness);
});
after(async () => {
  await closeBrowser();
  await t?.cleanup();
});

test('both agents name-match every call; exact call match and argument accuracy order them, with CIs, tiers and pass^2', () => {
  const model = ReportModel.parse(analyzeHarnesses([input], { resamples: 500, seed: 3 }));
  const board = model.leaderboard;
  assert.deepEqual(
    board.map((r) => r.agent),
    [t.oracle, t.changer],
  );
  const [oracle, changer] = board as [(typeof board)[0], (typeof board)[0]];
  assert.deepEqual(oracle.ids, ['gemini:gemini-2.5-flash']);
  assert.deepEqual(changer.ids, ['openai:agent-model']);
  for (const r of board) {
    assert.equal(r.runs, 2);
    assert.equal(r.k, 2);
    assert.equal(r.overall.scenarios, t.records.length);
    assert.equal(r.overall.scenarioRuns, 2 * t.records.length);
    assert.equal(r.overall.nameMatch.mean, 1, `${r.agent}: name match alone cannot tell them apart`);
    assert.equal(r.tiers.simple.scenarios + r.tiers.complex.scenarios, t.records.length);
    assert.equal(r.tiers.simple.scenarios, t.records.filter((x) => x.tier === 'simple').length);
  }
  assert.equal(oracle.overall.exactCallMatch.mean, 1);
  assert.equal(oracle.overall.argumentAccuracy.mean, 1);
  assert.deepEqual(oracle.overall.exactCallMatch.ci, [1, 1]);
  assert.equal(oracle.overall.passRate, 1);
  assert.equal(oracle.overall.passHatK, 1);
  assert.deepEqual(oracle.topErrors, []);

  const e = changer.overall.exactCallMatch;
  assert.ok(e.mean !== null && e.mean < 1, `changer exact ${e.mean}`);
  assert.ok(e.ci && e.ci[0] <= e.mean && e.mean <= e.ci[1] && e.ci[1] <= 1, `CI ${JSON.stringify(e.ci)}`);
  const a = changer.overall.argumentAccuracy.mean;
  assert.ok(a !== null && a > 0 && a < 1, `changer arguments ${a}`);
  assert.ok((changer.overall.passHatK ?? 1) < 1);

  // Recomputed from the harness: per scenario, the share of its calls whose first argument the changer changes.
  const perScenario = t.records.map((r) => {
    const n = r.expected_tools.length;
    const exact = r.expected_tools.filter((c) => {
      const k = Object.keys(c.arguments)[0];
      return k === undefined || !t.changed.has(`${c.name}\u241f${k}`);
    }).length;
    return n ? exact / n : 1;
  });
  const expected = perScenario.reduce((x, y) => x + y, 0) / perScenario.length;
  assert.ok(Math.abs((e.mean ?? NaN) - expected) < 1e-12, `exact ${e.mean} vs recomputed ${expected}`);

  // Its most frequent mistakes are the parameters it changes, as wrong values.
  assert.ok(changer.topErrors.length > 0 && changer.topErrors.length <= 5);
  for (const x of changer.topErrors) {
    assert.equal(x.verdict, 'wrong');
    assert.ok(x.parameter !== null && t.changed.has(`${x.tool}\u241f${x.parameter}`), JSON.stringify(x));
    assert.equal(x.count % 2, 0, 'the same mistake in both runs');
  }
  const counts = changer.topErrors.map((x) => x.count);
  assert.deepEqual(
    counts,
    [...counts].sort((x, y) => y - x),
  );
});

test('scores come from the calls, never from a stored score: an edited trajectory changes the board, a stray one is a warning', async () => {
  // The oracle's run 1 of the first scenario loses its calls; a trajectory of an unknown scenario is added.
  const dir = join(agentRunsDir(t, t.oracle), '1');
  const name = (await readdir(dir)).sort()[0]!;
  const original = Trajectory.parse(JSON.parse(await readFile(join(dir, name), 'utf8')));
  try {
    await writeFile(join(dir, name), JSON.stringify({ ...original, calls: [], score: 1, exactCallMatch: 1 }));
    await writeFile(join(dir, 'stray.json'), JSON.stringify({ ...original, scenarioId: 'no-such-scenario' }));
    await writeFile(join(dir, 'broken.json'), '{');
    const read = await readRuns(t.harness);
    assert.equal(read.problems.length, 1);
    assert.match(read.problems[0]!.message, /not JSON/);
    const model = analyzeHarnesses([{ ...input, runs: read.agents }], { resamples: 200 });
    const oracle = model.leaderboard.find((r) => r.agent === t.oracle)!;
    assert.ok((oracle.overall.exactCallMatch.mean ?? 1) < 1, 'the emptied trajectory is scored as it is now');
    assert.ok(oracle.topErrors.some((x) => x.verdict === 'missed-call'));
    assert.ok(model.warnings.some((w) => w.startsWith('Leaderboard: agent') && /1 trajectories name no scenario/.test(w)));
  } finally {
    await writeFile(join(dir, name), JSON.stringify(original));
    await Promise.all(['stray.json', 'broken.json'].map((f) => rm(join(dir, f), { force: true })));
  }
});

test('no runs: an empty leaderboard and no leaderboard section', async () => {
  const model = analyzeHarnesses([{ ...input, runs: [] }], { resamples: 100 });
  assert.deepEqual(model.leaderboard, []);
  assert.ok(!renderMarkdown(model).includes('Agent leaderboard'));
});

test('runs of a harness whose spec is unknown are not scored, and the report says so', () => {
  const model = analyzeHarnesses([{ ...input, spec: undefined }], { resamples: 100 });
  assert.deepEqual(model.leaderboard, []);
  assert.ok(model.warnings.some((w) => /^Leaderboard: the runs of .* are not scored: its spec is unknown/.test(w)));
});

test('Markdown: the leaderboard comes first, agents in order, mistakes listed', () => {
  const md = renderMarkdown(analyzeHarnesses([input], { resamples: 200 }));
  const at = (s: string) => md.indexOf(s);
  assert.ok(at('## Agent leaderboard') > 0 && at('## Agent leaderboard') < at('## Scores'));
  assert.ok(at('### Agents by call score') > 0);
  const rows = md.split('\n').filter((l) => l.startsWith(`| ${t.oracle} `) || l.startsWith(`| ${t.changer} `));
  assert.ok(
    rows[0]?.startsWith(
      `| ${t.oracle} | ${t.records.length} | ${2 * t.records.length} | 1.000 \\[1.000, 1.000] | 1.000 \\[1.000, 1.000] | 1.000 \\[1.000, 1.000] | 1.000 \\[1.000, 1.000] | 1.000 |`,
    ),
    rows[0],
  );
  assert.ok(rows[1]?.startsWith(`| ${t.changer} |`));
  assert.match(md, /### Most frequent mistakes/);
  assert.ok(rows.some((l) => l.includes('| wrong |')));
});

test('HTML: the leaderboard tables render in Chromium under the CSP, rows in board order', async () => {
  ensureBundle();
  const model = analyzeHarnesses([input], { resamples: 200 });
  const { page, log } = await openReport(renderHtml(model), '/tmp/agent-seer-leaderboard-test.html');
  assert.deepEqual(log.errors, []);
  assert.deepEqual(log.violations, []);
  const tables = await page.evaluate(() =>
    Object.fromEntries(
      ['leaderboard', 'leaderboard-tiers', 'leaderboard-errors'].map((id) => {
        const table = document.querySelector(`#t-${id} table`);
        const rows = table
          ? Array.from<any>(table.querySelectorAll('tbody tr')).map((tr) => Array.from<any>(tr.children).map((c) => String(c.textContent)))
          : null;
        return [id, rows];
      }),
    ),
  );
  const board = tables['leaderboard'] as string[][] | null;
  assert.ok(board, `leaderboard table found: ${JSON.stringify(Object.keys(tables))}`);
  assert.deepEqual(
    board.map((r) => r[0]),
    [t.oracle, t.changer],
  );
  assert.equal((tables['leaderboard-tiers'] as string[][]).length, 4);
  assert.ok((tables['leaderboard-errors'] as string[][]).every((r) => r[0] === t.changer && r[4] === 'wrong'));
  // The figure: agents × scores, a whisker (CI) on every bar (2 agents × 3 exact scores; no judge ran).
  const fig = await page.evaluate(() => {
    const f = document.querySelector('#s-leaderboard figure[data-figure="leaderboard-chart"]');
    const canvas = f?.querySelector('canvas');
    return f && canvas ? { whiskers: f.dataset.whiskers, width: canvas.width, height: canvas.height, label: canvas.getAttribute('aria-label') } : null;
  });
  assert.ok(fig, 'the leaderboard figure is in the leaderboard section');
  assert.equal(fig.whiskers, '8');
  assert.ok(fig.width > 0 && fig.height > 0);
  assert.match(fig.label ?? '', /bootstrap CIs/);
  await page.screenshot({ path: '/tmp/agent-seer-leaderboard-figure.png', fullPage: true });
  await page.close();
});
