/**
 * `agent-seer judge` in process: over a harness the offline generator wrote for a real fixture
 * spec, with the offline judge, the fake Gemini, and both at once; spec lookup through the
 * manifest; exit codes.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { readHarness, writeHarness } from '../../src/core/harness/store';
import { StoredJudgment } from '../../src/core/judge';
import { generateOffline, offlineManifest } from '../../src/core/pipeline/offline';
import { loadSpecText } from '../../src/core/spec/snapshot';
import { startFakeGemini } from '../fakes/fakeGemini';
import type { FakeLlmServer } from '../fakes/fakeLlmServer';
import { scriptJudge } from './judgeFixtures';
import { cli as runCli, type Captured } from './cliRunner';
import { specsDir } from './fixturePaths';

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
    assert.match(r.out, /^offline\s+\d+\s+0\s+0\s+–\s+–\s+1\.000\s+0\s+0/m);
    assert.match(r.err, /judging .* against .*filesystem\.json with offline/);
    const all = await judgments(dir);
    for (const id of ids) {
      const j = all.get(id)?.offline;
      assert.ok(j, id);
      assert.equal(j.tc, null, 'the offline judge gives no TC');
      assert.equal(j.exact, 1, `${id}: the offline generator writes schema-valid calls`);
      assert.equal(j.subdimensions['arguments.type'], 1);
      assert.equal(j.subdimensions['arguments.value'], null);
      assert.deepEqual(j.status, { tc: 'not-scored', coh: 'not-scored' });
    }
    // A second run has nothing to do.
    const again = await cli(['judge', dir, '--json']);
    assert.equal(again.code, 0, again.err);
    const summary = JSON.parse(again.out) as { judges: { id: string; judged: number; skipped: number }[] };
    assert.deepEqual(summary.judges.map((j) => [j.id, j.judged, j.skipped]), [['offline', 0, ids.length]]);
  });

  it('two judges, offline and the fake Gemini: both keys stored, LLM calls and tokens reported', async () => {
    const { dir, ids } = await harness();
    scriptJudge(fake);
    const r = await cli(['judge', dir, '--judge', 'offline', '--judge', 'gemini', '--base-url', fake.url, '--json', '--concurrency', '3'], { GEMINI_API_KEY: 'test-key' });
    assert.equal(r.code, 0, r.err);
    const summary = JSON.parse(r.out) as { judges: { id: string; judged: number; notJudged: number; meanTc: number | null; meanCoh: number | null; llmCalls: number; inputTokens: number }[] };
    assert.deepEqual(summary.judges.map((j) => j.id), ['offline', 'gemini:gemini-2.5-flash']);
    const g = summary.judges[1]!;
    assert.equal(g.judged, ids.length);
    assert.equal(g.notJudged, 0);
    assert.equal(g.meanTc, 1);
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
      const r = await cli(args.map((a) => (a === '<dir>' ? dir : a)), env);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, message);
    });
  }
});
