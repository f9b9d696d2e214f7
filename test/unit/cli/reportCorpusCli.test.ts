/**
 * `agent-seer report` over a corpus: a folder of harness folders (a corpus generate's --out)
 * stands for them, and the report starts with the corpus table (one row per server and the
 * total), in Markdown and in the HTML page (Chromium). A single harness's report has no such table.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- browser globals inside page.evaluate callbacks (this file compiles without the DOM lib) */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Io } from '../../../src/cli/errors';
import { run } from '../../../src/cli/main';
import { readHarness } from '../../../src/core/harness/store';
import { specsDir } from '../fixturePaths';
import { closeBrowser, ensureBundle, openReport } from '../core/report/reportPage';
import { JUDGE_A, judgedHarness, type JudgedHarness } from '../core/report/reportSetup.test';

declare const document: any;

function io(cwd: string): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (s) => stdout.push(s), err: (s) => stderr.push(s), cwd, env: {} };
}

const FAST = ['--resamples', '200', '--judge', JUDGE_A];
let root: string;
let harnesses: { name: string; folder: string; h: JudgedHarness }[];

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'agent-seer-report-corpus-'));
  const made = [
    { file: 'filesystem.json', folder: 'secure-filesystem-server', seed: 3 },
    { file: 'git-official.json', folder: 'mcp-git', seed: 4 },
    { file: 'slack.json', folder: 'slack-mcp-server', seed: 5 },
  ];
  harnesses = [];
  for (const m of made) {
    const h = await judgedHarness(m.file, { seed: m.seed, simple: 4, complex: 3 });
    // As a corpus generate lays them out: one harness folder per spec under one folder.
    cpSync(h.dir, join(root, 'corpus', m.folder), { recursive: true });
    rmSync(h.dir, { recursive: true, force: true });
    harnesses.push({ name: h.spec.name, folder: m.folder, h });
  }
});

after(async () => {
  await closeBrowser();
  rmSync(root, { recursive: true, force: true });
});

/** The row the corpus table must have for a harness, counted from its records: tools, scenarios, records, TC scored, Coh scored. */
function expectedCounts(h: JudgedHarness): { tools: number; scenarios: number; records: number; tcScored: number; cohScored: number } {
  const records = h.records.length + h.records.filter((r) => r.conversation.length >= 2).length;
  // judgedHarness gives record 2's single-turn view no TC (a failed judge call); every view has Coh.
  return { tools: h.spec.tools.length, scenarios: h.records.length, records, tcScored: records - 1, cohScored: records };
}

const rowCells = (line: string): string[] =>
  line
    .replace(/^\|\s*|\s*\|$/g, '')
    .split(/\s*\|\s*/)
    .map((c) => c.replace(/\\/g, ''));

test('a folder of harness folders: the corpus table in Markdown, a row per server with the counts of its records, and the total', async () => {
  const c = io(root);
  assert.equal(await run(['report', 'corpus', '--format', 'md', ...FAST], c), 0, c.stderr.join('\n'));
  const md = c.stdout.join('\n');
  for (const x of harnesses) assert.match(c.stderr.join('\n'), new RegExp(`read ${x.h.records.length} records from corpus/${x.folder}`));
  assert.match(md, /^## Corpus$/m);
  assert.ok(md.indexOf('## Corpus') < md.indexOf('## Scores — judge'), 'the corpus table comes first');
  const section = md.slice(md.indexOf('### Servers of the corpus'), md.indexOf('## Scores — judge'));
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  assert.deepEqual(rowCells(lines[0]!), ['Server', 'Tools', 'Scenarios', 'Records', 'TC scored', 'TC [95% CI]', 'Coh scored', 'Coh [95% CI]']);
  const rows = lines.slice(2).map(rowCells);
  assert.equal(rows.length, 4, 'three servers and the total');
  const total = { tools: 0, scenarios: 0, records: 0, tcScored: 0, cohScored: 0 };
  // Rows in the order of the folders (sorted by name).
  for (const [i, x] of [...harnesses].sort((a, b) => (a.folder < b.folder ? -1 : 1)).entries()) {
    const e = expectedCounts(x.h);
    const r = rows[i]!;
    assert.equal(r[0], x.name);
    assert.deepEqual(r.slice(1, 5), [String(e.tools), String(e.scenarios), String(e.records), `${e.tcScored} of ${e.records}`], x.name);
    assert.equal(r[6], `${e.cohScored} of ${e.records}`);
    assert.match(
      r[5]!,
      /^0\.\d{3} \[0\.\d{3}, [01]\.\d{3}\] \((below|within|above) paper range\)$/,
      'the mean, its interval and its cue against the paper range',
    );
    for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += e[k];
  }
  const t = rows[3]!;
  assert.equal(t[0], 'All servers');
  assert.deepEqual(t.slice(1, 5), [String(total.tools), String(total.scenarios), String(total.records), `${total.tcScored} of ${total.records}`]);
  assert.equal(t[6], `${total.cohScored} of ${total.records}`);

  // The same numbers as the JSON model's rows (one home: the table is drawn from them).
  const j = io(root);
  assert.equal(await run(['report', 'corpus', '--format', 'json', ...FAST], j), 0);
  type Row = { tc: { mean: number }; coh: { mean: number }; exact: { n: number } };
  const model = JSON.parse(j.stdout.join('\n')) as { judges: { servers: Row[]; corpus: Row }[] };
  const judged = model.judges[0]!;
  const cells = (s: Row) => [s.tc.mean.toFixed(3), s.coh.mean.toFixed(3)];
  assert.deepEqual(
    rows.map((r) => [r[5]!.slice(0, 5), r[7]!.slice(0, 5)]),
    [...judged.servers, judged.corpus].map(cells),
  );
  // Synthetic judgments store no exact facts: no Exact or Grounding column of dashes, never a made-up 0.
  assert.equal(judged.corpus.exact.n, 0);
  assert.ok(rows.every((r) => r.length === 8));
});

test('the same folders named one by one give the same corpus table; a single harness has none', async () => {
  const folders = harnesses.map((x) => `corpus/${x.folder}`).sort();
  const [byParent, byName, single] = [io(root), io(root), io(root)];
  assert.equal(await run(['report', 'corpus', '--format', 'md', ...FAST], byParent), 0);
  assert.equal(await run(['report', ...folders, '--format', 'md', ...FAST], byName), 0);
  assert.equal(await run(['report', folders[0]!, '--format', 'md', ...FAST], single), 0);
  const table = (out: string[]) => /### Servers of the corpus[\s\S]*?(?=\n## )/.exec(out.join('\n'))?.[0];
  assert.ok(table(byParent.stdout));
  assert.equal(table(byName.stdout), table(byParent.stdout));
  assert.doesNotMatch(single.stdout.join('\n'), /## Corpus|Servers of the corpus/);
  // A folder with no harness in it is still bad input.
  const empty = io(root);
  assert.equal(await run(['report', '.', '--format', 'md'], empty), 2);
  assert.match(empty.stderr.join('\n'), /is not a harness folder .* and holds none/);
});

test('generate over a corpus, judge each harness offline, report the folder: the exact score and grounding of every server and the total', async () => {
  const specs = ['slack.json', 'git-official.json', 'memory.json'].map((f) => join(specsDir, f));
  assert.equal(await run(['generate', ...specs, '--out', 'made', '--simple', '3', '--complex', '2'], io(root)), 0);
  const folders = (await readdir(join(root, 'made'))).sort();
  assert.equal(folders.length, 3);
  for (const f of folders) assert.equal(await run(['judge', join('made', f)], io(root)), 0, f);
  const c = io(root);
  assert.equal(await run(['report', 'made', '--format', 'md', '--resamples', '200'], c), 0, c.stderr.join('\n'));
  const md = c.stdout.join('\n');
  const section = md.slice(md.indexOf('### Servers of the corpus'), md.indexOf('## Scores — judge'));
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  // The offline judge gives no TC or Coh: no columns of them, only the exact score and grounding.
  assert.deepEqual(rowCells(lines[0]!), ['Server', 'Tools', 'Scenarios', 'Records', 'Exact', 'Grounding']);
  const rows = lines.slice(2).map(rowCells);
  assert.equal(rows.length, 4);
  let scenarios = 0;
  for (const [i, f] of folders.entries()) {
    const h = await readHarness(join(root, 'made', f));
    const n = h.records.length + h.records.filter((r) => r.conversation.length >= 2).length;
    scenarios += h.records.length;
    assert.deepEqual(rows[i]!.slice(2, 4), [String(h.records.length), String(n)], f);
    // The offline judge decides exact facts only: an exact score and a grounding rate, no TC.
    assert.match(rows[i]![4]!, /^[01]\.\d{3}$/, `${f}: exact score`);
    assert.match(rows[i]![5]!, /^(\d{1,3}%|<1%|>99%)$/, `${f}: grounding rate`);
  }
  assert.equal(rows[3]![0], 'All servers');
  assert.equal(rows[3]![2], String(scenarios));
  assert.match(rows[3]![4]!, /^[01]\.\d{3}$/);
  // What the exact score covers is said with it.
  assert.match(section, /not a quality score: it cannot see the realism of the scenario/);
});

test('HTML: the corpus table renders in Chromium under the CSP, a row per server and the total', async () => {
  ensureBundle();
  const file = join(root, 'corpus.html');
  const c = io(root);
  assert.equal(await run(['report', 'corpus', '--format', 'html', '--out', file, ...FAST], c), 0, c.stderr.join('\n'));
  const { page, log } = await openReport(await readFile(file, 'utf8'), file);
  assert.deepEqual(log.errors, []);
  assert.deepEqual(log.violations, []);
  const rows = await page.evaluate(() => {
    const table = document.querySelector('#t-corpus table');
    return table ? Array.from<any>(table.querySelectorAll('tbody tr')).map((tr) => Array.from<any>(tr.children).map((td) => String(td.textContent))) : null;
  });
  assert.ok(rows, 'the corpus table is on the page');
  assert.deepEqual(
    rows.map((r) => r[0]),
    [...[...harnesses].sort((a, b) => (a.folder < b.folder ? -1 : 1)).map((x) => x.name), 'All servers'],
  );
  const records = harnesses.reduce((n, x) => n + expectedCounts(x.h).records, 0);
  assert.equal(rows[3]?.[3], String(records));
  assert.equal(rows[3]?.[4], `${records - harnesses.length} of ${records}`);
  await page.close();
});
