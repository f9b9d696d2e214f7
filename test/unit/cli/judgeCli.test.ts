/**
 * `agent-seer judge` in process: over a harness the offline generator wrote for a real fixture
 * spec, with the offline judge, the fake Gemini, and both at once; spec lookup through the
 * manifest; exit codes.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { readHarness, writeHarness } from '../../../src/core/harness/store';
import { StoredJudgment } from '../../../src/core/judge';
import { generateOffline, offlineManifest } from '../../../src/core/pipeline/offline';
import { loadSpecText } from '../../../src/core/spec/snapshot';
import { startFakeGemini } from '../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../fakes/fakeLlmServer';
import { scriptJudge } from '../judgeFixtures';
import { cli as runCli, type Captured } from '../cliRunner';
import { specsDir } from '../fixturePaths';

const SPEC_FILE = join(specsDir, 'filesystem.json');
const OPTIONS = { seed: 3, simple: 3, complex: 2, cover: false };

/** The CLI with a clean environment (no API keys from the machine leak into a test). */
function cli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = tmpdir()): Promise<Captured> {
  return runCli(args, cwd, { PATH: process.env.PATH, ...env });
}

/** An offline harness of filesystem.json; `source` overrides what the manifest says the spec file is. */
async function offlineHarness(source?: string | null): Promise<{ dir: string; ids: string[] }> {
  const loaded = loadSpecText(await readFile(SPEC_FILE, 'utf8'), SPEC_FILE);
  assert.ok(loaded.ok);
  const result = generateOffline(loaded.spec, OPTIONS);
  const manifest = offlineManifest(loaded.spec, OPTIONS, result, { startedAt: '2026-01-01T00:00:00Z' });
  if (source === null) delete manifest.spec.source;
  else if (source !== undefined) manifest.spec.source = source;
  const dir = await mkdtemp(join(tmpdir(), 'agent-seer-judge-cli-'));
  await writeHarness(dir, manifest, result.records);
  return { dir, ids: result.records.map((r) => r.id) };
}

async function judgments(dir: string): Promise<Map<string, Record<string, StoredJudgment>>> {
  const { records, problems } = await readHarness(dir);
  assert.deepEqual(problems, []);
  return new Map(records.map((r) => [r.id, Object.fromEntries(Object.entries(r.judgments ?? {}).map(([k, v]) => [k, StoredJudgment.parse(v)]))]));
}

describe('agent-seer judge', () => {
  let fake: FakeLlmServer;
  const dirs: string[] = [];
  before(async () => {
    fake = await startFakeGemini({ apiKey: 'test-key' });
  });
  after(async () => {
    await fake.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });
  beforeEach(() => fake.reset());
  const harness = async (source?: string | null): Promise<{ dir: string; ids: string[] }> => {
    const h = await offlineHarness(source);
    dirs.push(h.dir);
    return h;
  };

  it('judges offline by default, finding the spec through the manifest', async () => {
    const { dir, ids } = await harness();
    const r = await cli(['judge', dir]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`Judged ${ids.length} records`));
    assert.match(r.out, /^offline\s+\d+\s+0\s+0\s+–\s+–\s+[01]\.\d{3}\s+0$/m);
    assert.match(r.err, /judging .* against .*filesystem\.json with offline/);
    const all = await judgments(dir);
    for (const id of ids) {
      const j = all.get(id)?.offline;
      assert.ok(j, id);
      assert.equal(j.tc, null, 'the offline judge gives no TC');
      // Schema-valid calls (type, format and relevancy may be capped by the wrong-value cascade); value accuracy comes from grounding, and is below 1 exactly where a value is found nowhere.
      const ungrounded = j.findings.filter((f) => f.subdimension === 'arguments.value');
      assert.ok(
        ungrounded.every((f) => f.kind === 'ungrounded' && f.source === 'exact'),
        id,
      );
      for (const sub of ['completeness', 'name']) assert.equal(j.subdimensions[`arguments.${sub}`], 1, `${id} ${sub}`);
      assert.equal(j.subdimensions['arguments.value'] === 1, ungrounded.length === 0, id);
      assert.equal(j.exact === 1, ungrounded.length === 0, id);
      assert.deepEqual(j.status, { tc: 'not-scored', coh: 'not-scored' });
    }
    // A second run has nothing to do.
    const again = await cli(['judge', dir, '--json']);
    assert.equal(again.code, 0, again.err);
    const summary = JSON.parse(again.out) as { judges: { id: string; judged: number; skipped: number }[] };
    assert.deepEqual(
      summary.judges.map((j) => [j.id, j.judged, j.skipped]),
      [['offline', 0, ids.length]],
    );
  });

  it('two judges, offline and the fake Gemini: both keys stored, LLM calls and tokens reported', async () => {
    const { dir, ids } = await harness();
    scriptJudge(fake);
    const r = await cli(['judge', dir, '--judge', 'offline', '--judge', 'gemini', '--base-url', fake.url, '--json', '--concurrency', '3'], {
      GEMINI_API_KEY: 'test-key',
    });
    assert.equal(r.code, 0, r.err);
    const summary = JSON.parse(r.out) as {
      judges: { id: string; judged: number; notJudged: number; meanTc: number | null; meanCoh: number | null; llmCalls: number; inputTokens: number }[];
    };
    assert.deepEqual(
      summary.judges.map((j) => j.id),
      ['offline', 'gemini:gemini-2.5-flash'],
    );
    const g = summary.judges[1]!;
    assert.equal(g.judged, ids.length);
    assert.equal(g.notJudged, 0);
    // The scripted judge gives full marks; the exact grounding overrules it where the offline harness has a value found nowhere.
    assert.ok(g.meanTc !== null && g.meanTc > 0.9 && g.meanTc <= 1, String(g.meanTc));
    assert.equal(g.meanCoh, 1);
    assert.equal(g.llmCalls, fake.requests.length);
    assert.ok(g.llmCalls >= ids.length * 2 - 1, `${g.llmCalls} calls`); // one TC and (with a reply) one Coh call per record
    assert.ok(g.inputTokens > 0);
    const all = await judgments(dir);
    for (const id of ids) assert.deepEqual(Object.keys(all.get(id) ?? {}).sort(), ['gemini:gemini-2.5-flash', 'offline'], id);
    for (const req of fake.requests) assert.equal(req.temperature, 0);
    // The replies are cached under the harness: forcing a re-judge makes no call.
    fake.reset();
    scriptJudge(fake);
    const forced = await cli(['judge', dir, '--judge', 'gemini', '--base-url', fake.url, '--force'], { GEMINI_API_KEY: 'test-key' });
    assert.equal(forced.code, 0, forced.err);
    assert.equal(fake.requests.length, 0);
  });

  it('exits 1 when a record could not be judged, and says so', async () => {
    const { dir } = await harness();
    scriptJudge(fake, { tc: () => ({ text: 'no JSON here' }) });
    const r = await cli(['judge', dir, '--judge', 'gemini:gemini-2.5-flash', '--base-url', fake.url], { GEMINI_API_KEY: 'test-key' });
    assert.equal(r.code, 1);
    assert.match(r.err, /not judged \(see the record's notes\)/);
    assert.match(r.out, /Records not judged keep tc\/coh null/);
  });

  it('asks for --spec when the manifest cannot lead to the spec, and takes it', async () => {
    const { dir } = await harness('/nowhere/filesystem.json');
    const r = await cli(['judge', dir]);
    assert.equal(r.code, 2);
    assert.match(r.err, /cannot find the spec of this harness .*pass --spec FILE/);
    const ok = await cli(['judge', dir, '--spec', SPEC_FILE]);
    assert.equal(ok.code, 0, ok.err);
  });

  it('warns when the spec differs from the one the harness came from', async () => {
    const { dir } = await harness();
    const other = join(specsDir, 'git-official.json');
    const r = await cli(['judge', dir, '--spec', other]);
    assert.match(r.err, /warning: the spec in .*git-official\.json differs/);
  });

  it('exits 1 and names each record file it could not read, one line each: corrupt, empty, binary, a folder', async () => {
    const { dir, ids } = await harness();
    const records = join(dir, 'records');
    await writeFile(join(records, 'corrupt.json'), '{"id": "c", "prompt": ');
    await writeFile(join(records, 'empty.json'), '');
    await writeFile(join(records, 'binary.json'), Buffer.from([0x7b, 0x00, 0x0a, 0x1b, 0x5b, 0x32, 0x4a, 0xff]));
    await mkdir(join(records, 'x.json'));
    const r = await cli(['judge', dir]);
    assert.equal(r.code, 1, r.err);
    const lines = r.err.split('\n').filter((l) => /^agent-seer: .*records/.test(l));
    const reasons = Object.fromEntries(lines.map((l) => [/records[/\\](\S+?):/.exec(l)?.[1], l.replace(/^.*?\.json: /, '')]));
    assert.deepEqual(reasons, {
      'binary.json': 'binary file, not JSON',
      'corrupt.json': 'not JSON (Unexpected end of JSON input)',
      'empty.json': 'empty file, not JSON',
      'x.json': 'a folder, not a regular file',
    });
    // The readable records were judged all the same.
    assert.match(r.out, new RegExp(`Judged ${ids.length} records`));
  });

  it('scores a call of a tool missing from the spec as an exact failure', async () => {
    const { dir, ids } = await harness();
    const file = join(dir, 'records', `${ids[0]}.json`);
    const record = JSON.parse(await readFile(file, 'utf8')) as { expected_tools: { name: string }[]; mock_outputs: { name: string }[] };
    const calls = record.expected_tools.length;
    record.expected_tools[0]!.name = 'no_such_tool';
    record.mock_outputs[0]!.name = 'no_such_tool';
    await writeFile(file, JSON.stringify(record));
    const r = await cli(['judge', dir, '--json']);
    assert.equal(r.code, 0, r.err);
    const j = (await judgments(dir)).get(ids[0]!)?.offline;
    assert.ok(j);
    // The other calls are right: the record scores their share, and selection records the failure.
    assert.equal(j.exact, Math.round((10_000 * (calls - 1)) / calls) / 10_000);
    assert.equal(j.subdimensions['selection.correctness'], Math.round((10_000 * (calls - 1)) / calls) / 10_000);
    assert.ok(
      j.findings.some((f) => f.subdimension === 'selection.correctness' && f.score === 0 && f.source === 'exact'),
      JSON.stringify(j.findings),
    );
    const summary = JSON.parse(r.out) as { judges: { meanExact: number }[] };
    assert.ok(summary.judges[0]!.meanExact < 1, String(summary.judges[0]!.meanExact));
  });

  for (const [kind, reply] of [
    ['quota', { status: 429, message: 'Quota exceeded for quota metric GenerateRequestsPerDayPerProjectPerModel-FreeTier' }],
    ['outage', { status: 500, retryAfter: 0, message: 'backend error' }],
  ] as const) {
    it(`--json prints its summary when ${kind === 'quota' ? 'an exhausted quota' : 'an outage'} stops the run (it printed nothing)`, async () => {
      const { dir, ids } = await harness();
      fake.respondWith(reply);
      const r = await cli(['judge', dir, '--judge', 'gemini', '--base-url', fake.url, '--json', '--concurrency', '1'], { GEMINI_API_KEY: 'test-key' });
      assert.equal(r.code, 1, r.err);
      assert.ok(fake.requests.length > 0);
      const s = JSON.parse(r.out) as {
        status: string;
        stopped: string;
        exitCode: number;
        error: string;
        records: number;
        judges: { id: string; judged: number }[];
      };
      assert.equal(s.status, 'stopped');
      assert.equal(s.stopped, kind);
      assert.equal(s.exitCode, 1);
      assert.match(s.error, kind === 'quota' ? /LLM quota: the quota is exhausted/ : /./);
      assert.equal(s.records, ids.length);
      assert.deepEqual(
        s.judges.map((j) => [j.id, j.judged]),
        [['gemini:gemini-2.5-flash', 0]],
      );
    });
  }

  it('judges a record whose id was edited in its own file, and reports the mismatch', async () => {
    const { dir, ids } = await harness();
    const file = join(dir, 'records', `${ids[0]}.json`);
    const record = JSON.parse(await readFile(file, 'utf8')) as { id: string };
    record.id = 'renamed-by-hand';
    await writeFile(file, JSON.stringify(record));
    const r = await cli(['judge', dir]);
    assert.equal(r.code, 1, r.err);
    assert.match(
      r.err,
      new RegExp(`${ids[0]}\\.json: record id "renamed-by-hand" does not match the file name \\(a record with this id belongs in renamed-by-hand\\.json\\)`),
    );
    // No second file: the judgment went back into the file the record came from.
    assert.deepEqual((await readdir(join(dir, 'records'))).sort(), ids.map((id) => `${id}.json`).sort());
    const written = JSON.parse(await readFile(file, 'utf8')) as { id: string; judgments?: Record<string, unknown> };
    assert.equal(written.id, 'renamed-by-hand');
    assert.ok(written.judgments?.offline);
  });

  const bad: [string, string[], NodeJS.ProcessEnv, RegExp][] = [
    ['no folder', ['judge'], {}, /judge needs a harness folder/],
    ['not a harness', ['judge', '/'], {}, /not a harness folder/],
    ['an unknown judge', ['judge', '<dir>', '--judge', 'claude'], {}, /--judge takes offline, gemini\[:MODEL\] or openai:MODEL/],
    ['gemini without a key', ['judge', '<dir>', '--judge', 'gemini'], {}, /No Gemini API key/],
    ['the same judge twice', ['judge', '<dir>', '--judge', 'offline', '--judge', 'offline'], {}, /given twice/],
    ['a bad concurrency', ['judge', '<dir>', '--concurrency', '0'], {}, /--concurrency takes a whole number/],
  ];
  for (const [name, args, env, message] of bad) {
    it(`bad input exits 2: ${name}`, async () => {
      const dir = args.includes('<dir>') ? (await harness()).dir : '';
      const r = await cli(
        args.map((a) => (a === '<dir>' ? dir : a)),
        env,
      );
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, message);
    });
  }
});
