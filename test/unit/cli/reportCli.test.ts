/**
 * `agent-seer report` through `run`: the three formats on stdout and with --out, progress on
 * stderr, thresholds as a CI gate (exit 1), bad input (exit 2), and the spec lookup.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../cliRunner';
import { readHarness } from '../../../src/core/harness/store';
import { ReportModel } from '../../../src/core/report/schema';
import { repoRoot, specsDir } from '../fixturePaths';
import { JUDGE_A, JUDGE_B, judgedHarness, type JudgedHarness } from '../core/report/reportSetup.test';

let fs: JudgedHarness;
let git: JudgedHarness;
// Small B keeps the CLI runs fast; the statistics are tested elsewhere.
const FAST = ['--resamples', '300'];

before(async () => {
  fs = await judgedHarness('filesystem.json', { seed: 3, simple: 5, complex: 3 });
  git = await judgedHarness('git-official.json', { seed: 4, simple: 5, complex: 3 });
  // The HTML format inlines the bundled page script.
  const bundle = join(repoRoot, 'dist', 'report.js');
  const sources = ['media/report/report.ts', 'src/core/report/tables.ts'].map((f) => join(repoRoot, f));
  if (!existsSync(bundle) || sources.some((f) => statSync(f).mtimeMs > statSync(bundle).mtimeMs)) {
    execFileSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  }
});

after(() => {
  for (const h of [fs, git]) if (h) rmSync(h.dir, { recursive: true, force: true });
});

const meanTc = (m: ReportModel, i: number) => m.judges[0]?.servers[i]?.tc.mean ?? NaN;

test('json on stdout: the documented contract, one row per harness; progress on stderr only', async () => {
  const r = await cli(['report', fs.dir, git.dir, '--format', 'json', ...FAST]);
  assert.equal(r.code, 0, r.err);
  const model = ReportModel.parse(JSON.parse(r.out));
  assert.deepEqual(
    model.judges.map((j) => j.judge),
    [JUDGE_A, JUDGE_B],
  );
  assert.deepEqual(
    model.judges[0]?.servers.map((s) => s.name),
    ['secure-filesystem-server', 'mcp-git'],
  );
  assert.equal(model.settings.resamples, 300);
  assert.equal(model.agreement.length, 1);
  assert.ok(
    model.structure.every((s) => s.profile !== null),
    'specs found through the manifests',
  );
  assert.match(r.err, /read \d+ records from/);
  assert.match(r.err, /computing the report/);
});

test('md and html on stdout; --out writes the file and says so on stderr', async () => {
  const md = await cli(['report', fs.dir, ...FAST]);
  assert.equal(md.code, 0, md.err);
  assert.match(md.out, /^# Agent Seer report/);
  assert.match(md.out, /\| Server \| n \| Views \| TC scored \| TC \\\[95% CI\] \| σ \| Coh scored \|/);

  const html = await cli(['report', fs.dir, '--format', 'html', ...FAST]);
  assert.equal(html.code, 0, html.err);
  assert.match(html.out, /^<!DOCTYPE html>/);
  assert.match(html.out, /<script type="application\/json" id="report-data">/);

  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-report-out-'));
  const file = join(dir, 'nested', 'report.json');
  const r = await cli(['report', fs.dir, '--format', 'json', '--out', file, '--judge', JUDGE_B, ...FAST]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '', 'nothing on stdout with --out');
  assert.match(r.err, /wrote .*report\.json/);
  const model = ReportModel.parse(JSON.parse(readFileSync(file, 'utf8')));
  assert.deepEqual(
    model.judges.map((j) => j.judge),
    [JUDGE_B],
    '--judge picks the judge',
  );
  assert.deepEqual(model.agreement, []);
});

test("thresholds gate the exit code on the primary judge's server means", async () => {
  const base = await cli(['report', fs.dir, git.dir, '--format', 'json', ...FAST]);
  const model = ReportModel.parse(JSON.parse(base.out));
  const lowest = Math.min(meanTc(model, 0), meanTc(model, 1));
  const highest = Math.max(meanTc(model, 0), meanTc(model, 1));
  assert.ok(lowest < highest);

  const pass = await cli(['report', fs.dir, git.dir, '--format', 'json', '--min-tc', String(Math.floor(lowest * 100) / 100), ...FAST]);
  assert.equal(pass.code, 0, pass.err);
  const between = ((lowest + highest) / 2).toFixed(4);
  const fail = await cli(['report', fs.dir, git.dir, '--format', 'json', '--min-tc', between, ...FAST]);
  assert.equal(fail.code, 6);
  assert.ok(fail.out.length > 0, 'the report is still printed');
  const failing = fail.err.split('\n').filter((l) => /is below --min-tc/.test(l));
  assert.equal(failing.length, 1, fail.err);

  const coh = await cli(['report', fs.dir, '--format', 'json', '--min-coh', '0.99', ...FAST]);
  assert.equal(coh.code, 6);
  assert.match(coh.err, /mean Coh .* is below --min-coh 0\.99/);
  const cohOk = await cli(['report', fs.dir, '--format', 'json', '--min-coh', '0', '--min-tc', '0', ...FAST]);
  assert.equal(cohOk.code, 0, cohOk.err);
});

test('a threshold cannot pass without scores (an unjudged harness fails the gate)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-unjudged-'));
  cpSync(fs.dir, dir, { recursive: true });
  for (const id of fs.manifest.recordIds) {
    const f = join(dir, 'records', `${id}.json`);
    const rec = JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;
    delete rec.judgments;
    writeFileSync(f, JSON.stringify(rec));
  }
  const r = await cli(['report', dir, '--format', 'json', '--min-tc', '0.5', ...FAST]);
  assert.equal(r.code, 6);
  assert.match(r.err, /no TC scores/);
  const model = ReportModel.parse(JSON.parse(r.out));
  assert.equal(model.judges[0]?.judge, null);
});

test('bad input exits 2 with one line: no folder, not a harness, unknown judge, bad options', async () => {
  const none = await cli(['report']);
  assert.equal(none.code, 2);
  assert.match(none.err, /at least one harness folder/);

  const missing = await cli(['report', join(tmpdir(), 'no-such-harness-xyz')]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no harness folder at/);

  const empty = mkdtempSync(join(tmpdir(), 'agent-seer-empty-'));
  const notHarness = await cli(['report', empty]);
  assert.equal(notHarness.code, 2);
  assert.match(notHarness.err, /is not a harness folder/);

  const judge = await cli(['report', fs.dir, '--judge', 'gemini:nope', ...FAST]);
  assert.equal(judge.code, 2);
  assert.match(judge.err, /unknown judge "gemini:nope"; available: synthetic:judge-a, synthetic:judge-b/);
  assert.equal(judge.err.split('\n').filter((l) => l.startsWith('agent-seer: unknown')).length, 1);

  for (const [args, pattern] of [
    [['--format', 'pdf'], /--format takes md, html or json/],
    [['--min-tc', '1.5'], /--min-tc takes a score between 0 and 1/],
    [['--min-coh', 'abc'], /--min-coh takes a score/],
    [['--resamples', '0'], /--resamples takes a whole number/],
    [['--bogus'], /report: unknown option --bogus/],
  ] as const) {
    const r = await cli(['report', fs.dir, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, pattern);
    assert.ok(!/\n\s+at /.test(r.err), 'no stack trace');
  }
});

test("--spec supplies the complexity profile when the manifest's source is gone; a bad record is a warning", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-nospec-'));
  cpSync(fs.dir, dir, { recursive: true });
  const manifestFile = join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { spec: { source: string } };
  manifest.spec.source = join(dir, 'moved-away.json');
  writeFileSync(manifestFile, JSON.stringify(manifest));
  mkdirSync(join(dir, 'records'), { recursive: true });
  writeFileSync(join(dir, 'records', 'broken.json'), '{ not json');

  const without = await cli(['report', dir, '--format', 'json', ...FAST]);
  assert.equal(without.code, 0, without.err);
  const m1 = ReportModel.parse(JSON.parse(without.out));
  assert.equal(m1.structure[0]?.profile, null);
  assert.ok(
    m1.warnings.some((w) => /cannot find the spec/.test(w)),
    m1.warnings.join('\n'),
  );
  assert.ok(m1.warnings.some((w) => /broken\.json: not JSON/.test(w)));
  assert.match(without.err, /broken\.json: not JSON/);

  const withSpec = await cli(['report', dir, '--format', 'json', '--spec', join(specsDir, 'filesystem.json'), ...FAST]);
  assert.equal(withSpec.code, 0, withSpec.err);
  const m2 = ReportModel.parse(JSON.parse(withSpec.out));
  assert.equal(m2.structure[0]?.profile?.tools, 14);
  assert.ok(m2.judges[0]?.correlations.some((c) => c.grain === 'tool' && c.n > 5));
});

test('help lists the report command', async () => {
  const r = await cli(['--help']);
  assert.match(r.out, /agent-seer report <harness-dir…> \[--format md\|html\|json\]/);
});

test('unscored records: "n scored of N" counted from the stored judgments, and a warning on stderr, in Markdown, HTML and JSON', async () => {
  const { records } = await readHarness(fs.dir);
  // Rows as the paper counts records: each record, and each conversation again.
  const views = records.flatMap((r) => {
    const j = r.judgments?.[JUDGE_A] as (Record<string, unknown> & { conversation?: Record<string, unknown> }) | undefined;
    return r.conversation.length >= 2 ? [j, j?.conversation] : [j];
  });
  const n = views.length;
  const tcScored = views.filter((j) => typeof j?.tc === 'number').length;
  assert.ok(tcScored < n, 'the fixture has a record whose TC judge failed');
  const warning = `Unscored: tool calling scored on ${tcScored} of ${n} records of secure-filesystem-server by judge ${JUDGE_A}.`;

  const md = await cli(['report', fs.dir, '--judge', JUDGE_A, ...FAST]);
  assert.equal(md.code, 0, md.err);
  assert.ok(md.err.includes(`agent-seer: warning: ${warning}`), md.err);
  assert.ok(md.out.includes(warning), 'in the Markdown warnings');
  assert.ok(md.out.includes(`| ${tcScored} of ${n} |`), 'the scores table says n scored of N');

  const json = await cli(['report', fs.dir, '--judge', JUDGE_A, '--format', 'json', ...FAST]);
  const model = ReportModel.parse(JSON.parse(json.out));
  assert.ok(model.warnings.includes(warning));
  const s = model.judges[0]?.servers[0];
  assert.deepEqual([s?.n, s?.tc.n, s?.records], [n, tcScored, records.length]);

  const html = await cli(['report', fs.dir, '--judge', JUDGE_A, '--format', 'html', ...FAST]);
  assert.ok(html.out.includes(JSON.stringify(warning).slice(1, -1)), 'the warning is in the page data');
});
