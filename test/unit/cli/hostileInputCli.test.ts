/**
 * Hostile input that used to hang the built CLI: a spec `pattern` with catastrophic backtracking
 * (judged offline, and met in a model's reply during `generate`), and an endpoint that never
 * answers. Each runs `dist/cli.js` as a process (npm run build first) with a kill timer far past
 * what a correct run needs: the assertion is that the process ends by itself, not how fast.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBuiltCli, type BuiltRun } from '../cliRunner';
import { after, test } from 'node:test';
import { loadSpecText } from '../../../src/core/spec/snapshot';
import { startFakeGemini } from '../../fakes/fakeGemini';
import { HOSTILE_VALUE as HOSTILE, REDOS_SPEC } from '../hostileSchemas';
import { createResponder, stageOf } from '../pipelineResponder';

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-hostile-'));
  made.push(dir);
  return dir;
}
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The built CLI with a Gemini key, to its end or killed after `killAfterMs` (then `killed` is true). */
const runBin = (args: string[], cwd: string, killAfterMs: number): Promise<BuiltRun> =>
  runBuiltCli(args, { cwd, env: { GEMINI_API_KEY: 'test-key' }, killAfterMs });

function writeSpec(dir: string): string {
  const file = join(dir, 'redos.json');
  writeFileSync(file, JSON.stringify(REDOS_SPEC));
  return file;
}

test('judge: a record value against a catastrophic pattern is judged (a format error), not a hang', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const spec = writeSpec(dir);
  const gen = await runBin(['generate', spec, '--out', 'h', '--simple', '2', '--complex', '0'], dir, 30_000);
  assert.equal(gen.code, 0, gen.err);
  const records = join(dir, 'h', 'records');
  const file = join(records, readdirSync(records).sort()[0]!);
  const record = JSON.parse(readFileSync(file, 'utf8')) as { prompt: string; expected_tools: { arguments: Record<string, unknown> }[] };
  record.expected_tools[0]!.arguments.code = HOSTILE;
  record.prompt = `Look up the code "${HOSTILE}".`;
  writeFileSync(file, JSON.stringify(record, null, 2));

  const judged = await runBin(['judge', 'h', '--json'], dir, 30_000);
  assert.equal(judged.killed, false, 'judge ended by itself');
  assert.equal(judged.code, 0, judged.err);
  const summary = JSON.parse(judged.out) as { judges: { judged: number }[] };
  assert.equal(summary.judges[0]?.judged, 2);
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { judgments?: unknown };
  assert.match(JSON.stringify(stored.judgments), /must match pattern/, 'the hostile value fails the pattern');
});

test('inspect reports a pattern the linear-time engine refuses; judge notes that it was not checked', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const file = join(dir, 'backref.json');
  const spec = structuredClone(REDOS_SPEC);
  spec.tools[0]!.inputSchema.properties.code.pattern = '^(a+)\\1$';
  writeFileSync(file, JSON.stringify(spec));
  const inspected = await runBin(['inspect', file, '--json'], dir, 30_000);
  assert.match(inspected.out, /"code": "pattern-unsupported"/);
  assert.match(inspected.out, /it uses a backreference/);
  const gen = await runBin(['generate', file, '--out', 'h', '--simple', '1', '--complex', '0'], dir, 30_000);
  assert.equal(gen.code, 0, gen.err);
  assert.equal((await runBin(['judge', 'h'], dir, 30_000)).code, 0);
  const records = join(dir, 'h', 'records');
  const stored = readFileSync(join(records, readdirSync(records)[0]!), 'utf8');
  assert.match(stored, /'find_code': pattern \\"\^\(a\+\)\\\\\\\\1\$\\" is not checked: it uses a backreference/);
});

test('generate: a model reply carrying a hostile value is rejected by the pattern, and the run ends', { timeout: 90_000 }, async () => {
  const dir = tempDir();
  const spec = writeSpec(dir);
  const load = loadSpecText(JSON.stringify(REDOS_SPEC), spec);
  assert.ok(load.ok);
  const responder = createResponder({ spec: load.spec });
  responder.args.set('find_code', { code: HOSTILE });
  const fake = await startFakeGemini({ apiKey: 'test-key' });
  try {
    fake.respondWith(responder.respond);
    const r = await runBin(['generate', spec, '--provider', 'gemini', '--base-url', fake.url, '--out', 'g', '--simple', '2', '--complex', '0'], dir, 60_000);
    assert.equal(r.killed, false, 'generate ended by itself');
    assert.ok(
      fake.requests.some((q) => stageOf(q) === 'scenarios'),
      'the hostile reply was sent',
    );
    assert.ok(r.code !== null && r.code <= 3, `an exit code of the run, got ${r.code}: ${r.err}`);
    const records = readdirSync(join(dir, 'g', 'records'));
    for (const n of records) assert.ok(!readFileSync(join(dir, 'g', 'records', n), 'utf8').includes(HOSTILE), `${n} holds no value that breaks the pattern`);
  } finally {
    await fake.close();
  }
});

test('generate: an endpoint that never answers stops the run after a bounded number of requests, with waiting lines', { timeout: 90_000 }, async () => {
  const dir = tempDir();
  const spec = writeSpec(dir);
  const fake = await startFakeGemini({ apiKey: 'test-key' });
  try {
    fake.respondWith({ hang: true });
    const r = await runBin(['generate', spec, '--provider', 'gemini', '--base-url', fake.url, '--out', 'g', '--request-timeout', '2'], dir, 60_000);
    assert.equal(r.killed, false, r.err);
    assert.notEqual(r.code, 0, r.err);
    assert.match(r.err, /the endpoint did not answer within 2 s/);
    assert.match(r.err, /waiting for \d+ LLM calls?, the oldest for \d+ s \(request timeout 2 s\)/);
    // 3 timed-out calls in a row, each sent twice, plus what was in flight when the stop came (concurrency 4).
    assert.ok(fake.requests.length <= 2 * (3 + 4), `${fake.requests.length} requests`);
    assert.match(r.err, /LLM endpoint down: 3 calls in a row failed, the last after 2 attempts \(the endpoint did not answer within 2 s\)/);
  } finally {
    await fake.close();
  }
});

test('--request-timeout is checked like any number', async () => {
  const dir = tempDir();
  const r = await runBin(['generate', writeSpec(dir), '--provider', 'gemini', '--request-timeout', '0'], dir, 30_000);
  assert.equal(r.code, 2);
  assert.match(r.err, /--request-timeout takes a whole number ≥ 1, got "0"/);
});
