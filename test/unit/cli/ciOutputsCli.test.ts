/**
 * Outputs and gates for CI, through the CLI: JUnit files from `judge` and `run` validated
 * against the published JUnit XSD, SARIF files from `inspect` and `judge` validated against the
 * published SARIF 2.1.0 schema, GitHub annotations only under GITHUB_ACTIONS, and the offline
 * gates (`--min-exact`, `--min-determinacy`, `inspect --fail-on`, `run --min-score`) failing and
 * passing as they should, each with one line.
 *
 * The schemas are vendored in test/fixtures/ci/ (see its README.md for where each came from) and
 * read by ../ciValidation.ts.
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { escapeData, escapeProperty, githubAnnotation } from '../../../src/core/ci/sarif';
import type { HarnessRecord } from '../../../src/core/harness/format';
import { StoredJudgment } from '../../../src/core/judge/schemas';
import { readHarness } from '../../../src/core/harness/store';
import { startFakeGemini } from '../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../fakes/fakeLlmServer';
import { geminiAgent, oraclePlan } from '../../fakes/scriptedAgent';
import { junitCases, junitErrors, noActions, sarifErrors } from '../ciValidation';
import { cli } from '../cliRunner';
import { specsDir } from '../fixturePaths';

interface SarifLog {
  runs: {
    tool: { driver: { rules: { id: string }[] } };
    results: {
      ruleId: string;
      level: string;
      message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number; startColumn: number } } }[];
    }[];
  }[];
}

describe('CI outputs and offline gates', () => {
  let root: string;
  let clean: string;
  let planted: string;
  let records: HarnessRecord[];
  /** The planted record: its id, file, the argument changed and the value planted. */
  let defect: { id: string; file: string; param: string; value: string };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-ci-'));
    clean = join(root, 'clean');
    assert.equal((await cli(['generate', join(specsDir, 'git-official.json'), '--out', clean, '--simple', '3', '--complex', '2'], root, noActions())).code, 0);
    records = (await readHarness(clean)).records;
    planted = join(root, 'planted');
    await cp(clean, planted, { recursive: true });
    // A defect the offline judge must see: a path the user never said, in a simple record's first call.
    const read = await readHarness(planted);
    const victim = read.records.find((r) => r.tier === 'simple' && Object.values(r.expected_tools[0]?.arguments ?? {}).some((v) => typeof v === 'string'));
    assert.ok(victim, 'a simple record with a string argument');
    const args = victim.expected_tools[0]!.arguments;
    const param = Object.keys(args).find((k) => typeof args[k] === 'string')!;
    const value = '/srv/nobody/said/this';
    args[param] = value;
    const file = read.files.get(victim.id)!;
    await writeFile(file, `${JSON.stringify(victim, null, 2)}\n`);
    defect = { id: victim.id, file, param, value };
  });
  after(async () => rm(root, { recursive: true, force: true }));

  it('judge: a clean offline harness scores 1.000 and passes --min-exact 1; its JUnit (a case per view) and SARIF validate', async () => {
    const junit = join(root, 'out', 'clean.xml');
    const sarif = join(root, 'out', 'clean.sarif');
    const r = await cli(['judge', clean, '--min-exact', '1', '--min-determinacy', '1', '--junit', junit, '--sarif', sarif], root, noActions());
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /failed/);
    const xml = await readFile(junit, 'utf8');
    assert.deepEqual(await junitErrors(xml), []);
    assert.notDeepEqual(await junitErrors(xml.replace(/ hostname="[^"]*"/, '')), [], 'the XSD rejects what it should');
    const views = records.reduce((n, rec) => n + (rec.conversation.length >= 2 ? 2 : 1), 0);
    assert.ok(views > records.length, 'the fixture has conversations');
    const cases = junitCases(xml);
    assert.equal(cases.length, views);
    assert.ok(cases.some((c) => c.name.endsWith('(conversation)')));
    assert.deepEqual(
      cases.filter((c) => c.failure),
      [],
    );
    const log = JSON.parse(await readFile(sarif, 'utf8')) as SarifLog;
    assert.deepEqual(await sarifErrors(log), []);
    assert.deepEqual(log.runs[0]!.results, []);
  });

  it('judge: a planted defect fails --min-exact 1 with one line; JUnit and SARIF name the argument at fault, in its record file', async () => {
    const junit = join(root, 'out', 'planted.xml');
    const sarif = join(root, 'out', 'planted.sarif');
    const r = await cli(['judge', planted, '--min-exact', '1', '--junit', junit, '--sarif', sarif], root, noActions());
    assert.equal(r.code, 6, r.err);
    const gates = r.err.split('\n').filter((l) => /--min-exact/.test(l));
    assert.equal(gates.length, 1, r.err);
    const m = /--min-exact 1 failed: exact score \(offline\) (0\.\d{3}) is (0\.\d{3}) below the bar/.exec(gates[0]!);
    assert.ok(m, gates[0]);
    assert.equal(Number(m[2]), Number((1 - Number(m[1])).toFixed(3)));
    assert.doesNotMatch(r.out, /^::/m, 'no annotations outside GitHub Actions');

    const xml = await readFile(junit, 'utf8');
    assert.deepEqual(await junitErrors(xml), []);
    const failed = junitCases(xml).filter((c) => c.failure);
    assert.deepEqual(
      failed.map((c) => c.name),
      [`${defect.id} (single-turn)`],
    );
    const body = failed[0]!.failure!.body;
    assert.match(body, new RegExp(`argument ${defect.param}: value accuracy 0\\.00 \\(ungrounded\\)`));
    assert.ok(body.includes(`actual (the record's value): ${JSON.stringify(defect.value)}`), body);

    const log = JSON.parse(await readFile(sarif, 'utf8')) as SarifLog;
    assert.deepEqual(await sarifErrors(log), []);
    const results = log.runs[0]!.results;
    assert.ok(results.length > 0);
    const ungrounded = results.find((x) => x.ruleId === 'ungrounded');
    assert.ok(ungrounded, JSON.stringify(results.map((x) => x.ruleId)));
    assert.ok(log.runs[0]!.tool.driver.rules.some((rule) => rule.id === 'ungrounded'));
    const loc = ungrounded.locations[0]!.physicalLocation;
    assert.equal(loc.artifactLocation.uri, `planted/records/${defect.file.split(/[\\/]/).pop()}`);
    // The region is the argument's key in the record file, as the editor's diagnostic marks it.
    const lines = (await readFile(defect.file, 'utf8')).split('\n');
    const line = lines[loc.region!.startLine - 1]!;
    assert.equal(line.slice(loc.region!.startColumn - 1).split(':')[0], JSON.stringify(defect.param));
  });

  it('judge and report: --min-determinacy reads the stored determinacy and fails by the shortfall', async () => {
    const dir = join(root, 'undetermined');
    await cp(clean, dir, { recursive: true });
    const read = await readHarness(dir);
    // Lower one judgment's determined count: the gate's arithmetic over all views, not a recomputation.
    type Counts = { determinacy: { checked: number; determined: number } };
    const offline = (r: HarnessRecord) => StoredJudgment.parse(r.judgments?.offline) as Counts & { conversation?: Counts };
    let checked = 0;
    let determined = 0;
    for (const rec of read.records) {
      const j = offline(rec);
      for (const v of [j, j.conversation].filter((x) => x !== undefined)) {
        checked += v.determinacy.checked;
        determined += v.determinacy.determined;
      }
    }
    // Edited in the file's own JSON: a record rewritten from its parsed form would be judged again.
    const file = read.files.get(read.records.find((x) => offline(x).determinacy.checked > 0)!.id)!;
    const raw = JSON.parse(await readFile(file, 'utf8')) as { judgments: { offline: Counts } };
    raw.judgments.offline.determinacy.determined -= 1;
    await writeFile(file, `${JSON.stringify(raw, null, 2)}\n`);
    const rate = (determined - 1) / checked;
    const judged = await cli(['judge', dir, '--min-determinacy', '1'], root, noActions());
    assert.equal(judged.code, 6, judged.err);
    const expected = `--min-determinacy 1 failed: determined share of values (offline) ${rate.toFixed(3)} is ${(1 - rate).toFixed(3)} below the bar`;
    assert.deepEqual(
      judged.err.split('\n').filter((l) => l.includes('--min-determinacy')),
      [`agent-seer: ${expected}`],
    );
    const reported = await cli(['report', dir, '--json', '--min-determinacy', '1', '--resamples', '50'], root, noActions());
    assert.equal(reported.code, 6, reported.err);
    assert.deepEqual(
      reported.err.split('\n').filter((l) => l.includes('--min-determinacy')),
      [`agent-seer: ${expected}`],
    );
    assert.equal(
      (await cli(['report', dir, '--json', '--min-determinacy', String(Math.floor(rate * 1000) / 1000), '--resamples', '50'], root, noActions())).code,
      0,
      'a bar at the rate passes',
    );
  });

  it('report: --json is --format json; --min-exact fails on the planted harness with one line and passes on the clean one', async () => {
    const a = await cli(['report', clean, '--json', '--resamples', '50'], root, noActions());
    const b = await cli(['report', clean, '--format', 'json', '--resamples', '50'], root, noActions());
    assert.equal(a.code, 0, a.err);
    assert.equal(a.out, b.out);
    assert.equal((JSON.parse(a.out) as { reportVersion: number }).reportVersion > 0, true);
    assert.equal((await cli(['report', clean, '--json', '--format', 'md'], root, noActions())).code, 2);
    assert.equal((await cli(['report', clean, '--min-exact', '1', '--resamples', '50'], root, noActions())).code, 0);
    const bad = await cli(['report', planted, '--min-exact', '1', '--resamples', '50'], root, noActions());
    assert.equal(bad.code, 6);
    assert.equal(bad.err.split('\n').filter((l) => l.includes('--min-exact')).length, 1, bad.err);
    assert.match(bad.err, /--min-exact 1 failed: exact score \(offline\) 0\.\d{3} is 0\.\d{3} below the bar/);
    assert.equal((await cli(['report', clean, '--min-exact', '1.5'], root, noActions())).code, 2);
  });

  it('annotations are printed only with GITHUB_ACTIONS=true, escaped, at the argument in the record file', async () => {
    const off = await cli(['judge', planted], root, noActions());
    assert.doesNotMatch(`${off.out}\n${off.err}`, /^::/m);
    const on = await cli(['judge', planted], root, { ...noActions(), GITHUB_ACTIONS: 'true' });
    assert.equal(on.code, 0, on.err);
    const lines = on.out.split('\n').filter((l) => l.startsWith('::'));
    assert.ok(lines.length > 0, on.out);
    const rel = `planted/records/${defect.file.split(/[\\/]/).pop()}`;
    assert.ok(
      lines.some((l) => l.startsWith(`::error file=${rel},line=`) && l.includes(`argument ${defect.param}`)),
      lines.join('\n'),
    );
    // Properties escape ':' (the title has one) and a message's newlines are %0A: one line each.
    assert.ok(
      lines.every((l) => /,title=[^:]*%3A[^:]*::/.test(l)),
      lines[0],
    );
    assert.ok(lines.some((l) => l.includes('%0A  actual')));
    // With --json the annotations go to stderr and stdout stays one JSON document.
    const json = await cli(['judge', planted, '--json'], root, { ...noActions(), GITHUB_ACTIONS: 'true' });
    assert.doesNotThrow(() => JSON.parse(json.out));
    assert.match(json.err, /^::error file=/m);
  });

  it('the annotation escapes follow GitHub’s rules', () => {
    assert.equal(escapeData('50% done\r\nnext: a, b'), '50%25 done%0D%0Anext: a, b');
    assert.equal(escapeProperty('a:b,c%\n'), 'a%3Ab%2Cc%25%0A');
    const line = githubAnnotation(
      {
        ruleId: 'r',
        level: 'warning',
        message: 'two\nlines: 100%',
        file: join('/w', 'dir,x', 'f:1.json'),
        range: { start: { line: 2, character: 4 }, end: { line: 2, character: 9 } },
        title: 'T: t',
      },
      '/w',
    );
    assert.equal(line, '::warning file=dir%2Cx/f%3A1.json,line=3,col=5,endLine=3,endColumn=10,title=T%3A t::two%0Alines: 100%25');
  });

  it('inspect --fail-on warning fails on a spec with warnings (one line) and passes on a clean one; its SARIF validates', async () => {
    const warned = join(specsDir, 'brave-search.json');
    const sarif = join(root, 'out', 'inspect.sarif');
    const r = await cli(['inspect', warned, '--fail-on', 'warning', '--sarif', sarif], root, noActions());
    assert.equal(r.code, 6, r.err);
    assert.deepEqual(
      r.err.split('\n').filter((l) => l.includes('--fail-on')),
      ['agent-seer: --fail-on warning failed: 0 errors and 2 warnings found, 2 over the bar of 0'],
    );
    assert.equal((await cli(['inspect', warned, '--fail-on', 'error'], root, noActions())).code, 0, 'warnings are under the error bar');
    assert.equal((await cli(['inspect', warned], root, noActions())).code, 0, 'no gate, no failure');
    const cleanSpec = await cli(['inspect', join(specsDir, 'context7.json'), '--fail-on', 'warning', '--json'], root, noActions());
    assert.equal(cleanSpec.code, 0, cleanSpec.err);
    assert.deepEqual((JSON.parse(cleanSpec.out) as { servers: { findings: unknown[] }[] }).servers[0]!.findings, []);
    assert.equal((await cli(['inspect', join(specsDir, 'gitlab-broken-empty-schemas.json'), '--fail-on', 'error'], root, noActions())).code, 6);
    assert.equal((await cli(['inspect', warned, '--fail-on', 'info'], root, noActions())).code, 2);

    const log = JSON.parse(await readFile(sarif, 'utf8')) as SarifLog;
    assert.deepEqual(await sarifErrors(log), []);
    const [result] = log.runs[0]!.results;
    assert.ok(result);
    assert.equal(result.ruleId, 'ambiguous-shared-param');
    assert.equal(result.level, 'warning');
    assert.ok(log.runs[0]!.tool.driver.rules.some((rule) => rule.id === 'ambiguous-shared-param'));
    const region = result.locations[0]!.physicalLocation.region!;
    const text = (await readFile(warned, 'utf8')).split('\n')[region.startLine - 1]!;
    assert.ok(text.slice(region.startColumn - 1).startsWith('"query"'), text);
    // The schema rejects what it should: a level SARIF does not have.
    assert.notDeepEqual(await sarifErrors({ ...log, runs: [{ ...log.runs[0], results: [{ ...result, level: 'severe' }] }] }), []);
  });

  describe('run', () => {
    let gemini: FakeLlmServer;
    const env = (): NodeJS.ProcessEnv => ({ ...noActions(), GEMINI_API_KEY: 'k' });
    before(async () => {
      gemini = await startFakeGemini({ apiKey: 'k' });
    });
    after(async () => gemini.close());

    it('--junit: a case per scenario run that validates; an agent with wrong arguments fails with expected vs actual; --min-score gates the call score', async () => {
      gemini.reset();
      gemini.respondWith(geminiAgent(oraclePlan(records)));
      const good = join(root, 'out', 'run-good.xml');
      const ok = await cli(
        ['run', clean, '--agent', 'gemini:gemini-2.5-flash', '--base-url', gemini.url, '--out', join(root, 'runs-good'), '--junit', good, '--min-score', '1'],
        root,
        env(),
      );
      assert.equal(ok.code, 0, ok.err);
      const goodXml = await readFile(good, 'utf8');
      assert.deepEqual(await junitErrors(goodXml), []);
      assert.deepEqual(
        junitCases(goodXml).map((c) => [c.name, c.failure]),
        records.map((r) => [r.id, undefined]),
      );

      gemini.reset();
      gemini.respondWith(geminiAgent(oraclePlan(records, (v) => (typeof v === 'string' ? `${v}-x` : v))));
      const bad = join(root, 'out', 'run-bad.xml');
      const r = await cli(
        // --no-cache: the oracle's replies of the first run are cached under the same endpoint and model.
        [
          'run',
          clean,
          '--agent',
          'gemini:gemini-2.5-flash',
          '--base-url',
          gemini.url,
          '--no-cache',
          '--out',
          join(root, 'runs-bad'),
          '--junit',
          bad,
          '--min-score',
          '0.99',
          '--json',
        ],
        root,
        env(),
      );
      assert.equal(r.code, 6, r.err);
      const score = (JSON.parse(r.out) as { summary: { callScore: number } }).summary.callScore;
      assert.deepEqual(
        r.err.split('\n').filter((l) => l.includes('--min-score')),
        [`agent-seer: --min-score 0.99 failed: call score (gemini:gemini-2.5-flash) ${score.toFixed(3)} is ${(0.99 - score).toFixed(3)} below the bar`],
      );
      const xml = await readFile(bad, 'utf8');
      assert.deepEqual(await junitErrors(xml), []);
      const failed = junitCases(xml).filter((c) => c.failure);
      assert.ok(failed.length > 0);
      const f = failed[0]!.failure!;
      assert.match(f.message, /^call score \d\.\d{3}: \d+ of \d+ expected calls right the first time/);
      assert.match(f.body, /\n {2}arguments: \S+ wrong/);
      const expected = /\n {2}expected: (.*)\n {2}actual: {3}(.*)/.exec(f.body);
      assert.ok(expected, f.body);
      assert.notEqual(expected[1], expected[2]);
      assert.match(expected[2]!, /-x"/);
    });

    it('report --junit/--sarif: from the stored judgments and runs, the same cases judge and run write; both validate', async () => {
      // The planted harness (judged offline above) with the wrong-arguments run of the test before in its runs/.
      const withRuns = join(root, 'with-runs');
      await cp(planted, withRuns, { recursive: true });
      await cp(join(root, 'runs-bad'), join(withRuns, 'runs', 'gemini-bad'), { recursive: true });
      const junit = join(root, 'out', 'report.xml');
      const sarif = join(root, 'out', 'report.sarif');
      const r = await cli(['report', withRuns, '--junit', junit, '--sarif', sarif, '--out', join(root, 'out', 'report.md')], root, noActions());
      assert.equal(r.code, 0, r.err);
      const xml = await readFile(junit, 'utf8');
      assert.deepEqual(await junitErrors(xml), []);
      const suites = [...xml.matchAll(/<testsuite [^>]* name="([^"]*)"/g)].map((m) => m[1]);
      assert.deepEqual(suites, ['with-runs judged by offline', 'with-runs run by gemini-bad']);
      const cases = junitCases(xml);
      const views = records.reduce((n, rec) => n + (rec.conversation.length >= 2 ? 2 : 1), 0);
      assert.equal(cases.length, views + records.length, 'a case per record view, then one per scenario run');
      const judged = cases.slice(0, views);
      assert.deepEqual(
        judged.filter((c) => c.failure).map((c) => c.name),
        [`${defect.id} (single-turn)`],
      );
      assert.match(judged.find((c) => c.failure)!.failure!.body, new RegExp(`argument ${defect.param}`));
      const runCases = cases.slice(views);
      assert.deepEqual(
        runCases.map((c) => c.name),
        records.map((rec) => rec.id),
      );
      assert.ok(
        runCases.some((c) => c.failure && /^call score \d\.\d{3}/.test(c.failure.message)),
        'the wrong-arguments run fails its scenarios',
      );
      const log = JSON.parse(await readFile(sarif, 'utf8')) as SarifLog;
      assert.deepEqual(await sarifErrors(log), []);
      const results = log.runs[0]!.results;
      assert.ok(results.length > 0);
      assert.ok(results.every((x) => x.locations[0]!.physicalLocation.artifactLocation.uri === `with-runs/records/${defect.file.split(/[\\/]/).pop()}`));
    });
  });
});
