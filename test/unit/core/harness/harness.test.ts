/** The harness on disk (round trip, atomic writes, bad files, path traversal, agent view, published schemas) and the stage contracts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { HarnessManifest, HarnessRecord } from '../../../../src/core/harness/format';
import { canonicalJson, specHash, toolHash } from '../../../../src/core/harness/hash';
import { harnessJsonSchemas, HARNESS_SCHEMA_FILES } from '../../../../src/core/harness/jsonSchema';
import {
  exportForAgent,
  readHarness,
  recordFile,
  recordFileStem,
  stableJson,
  writeFileAtomic,
  writeHarness,
  writeRecord,
} from '../../../../src/core/harness/store';
import { generateOffline, offlineManifest } from '../../../../src/core/pipeline/offline';
import { loadFixtureSpec, repoRoot } from '../../fixturePaths';

const loadSpec = loadFixtureSpec;

const slack = loadSpec('slack.json');
const options = { seed: 11, simple: 3, complex: 2 };
const generated = generateOffline(slack, options);
const manifest = offlineManifest(slack, options, generated, {
  startedAt: '2026-06-01T09:00:00.000Z',
  finishedAt: '2026-06-01T09:00:01.000Z',
  durationMs: 1000,
});

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'agent-seer-harness-'));

/** Every file below a folder, relative. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

test('round trip: what is written reads back equal, with no problems', async () => {
  const dir = tempDir();
  await writeHarness(dir, manifest, generated.records);
  const read = await readHarness(dir);
  assert.deepEqual(read.problems, []);
  assert.deepEqual(read.manifest, manifest);
  const byId = [...generated.records].sort((a, b) => (a.id < b.id ? -1 : 1));
  assert.deepEqual(read.records, byId);
  assert.ok(generated.records.length >= 5);
});

test('recordFile: the file a record was read from, else where writeRecord puts it', async () => {
  const dir = tempDir();
  await writeHarness(dir, manifest, generated.records);
  const first = generated.records[0]!;
  // A record whose file was renamed by hand keeps being found under its new name.
  const renamed = join(dir, 'records', 'renamed-by-hand.json');
  renameSync(join(dir, 'records', `${recordFileStem(first.id)}.json`), renamed);
  const read = await readHarness(dir);
  assert.equal(recordFile({ dir, files: read.files }, first), renamed);
  const other = generated.records[1]!;
  assert.equal(recordFile({ dir, files: read.files }, other), join(dir, 'records', `${recordFileStem(other.id)}.json`));
  assert.ok(existsSync(recordFile({ dir, files: read.files }, other)));
  assert.equal(recordFile({ dir, files: new Map() }, { id: 'not/yet written' }), join(dir, 'records', `${recordFileStem('not/yet written')}.json`));
});

test('files are stable pretty JSON and identical when written twice', async () => {
  const a = tempDir();
  const b = tempDir();
  await writeHarness(a, manifest, generated.records);
  await writeHarness(b, manifest, generated.records);
  const files = walk(a).sort();
  assert.deepEqual(walk(b).sort(), files);
  for (const f of files) {
    const text = readFileSync(join(a, f), 'utf8');
    assert.equal(text, readFileSync(join(b, f), 'utf8'), f);
    assert.ok(text.endsWith('}\n'), `${f} ends with a newline`);
    assert.ok(text.startsWith('{\n  "'), `${f} uses 2-space indent`);
  }
  assert.equal(stableJson({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}\n');
});

test('atomic writes leave no temp files, also when the rename fails', async () => {
  const dir = tempDir();
  await writeHarness(dir, manifest, generated.records);
  assert.deepEqual(
    walk(dir).filter((f) => f.endsWith('.tmp')),
    [],
  );
  // A directory where the file should go makes the rename fail: the temp file must be cleaned up.
  const target = join(dir, 'blocked.json');
  mkdirSync(target);
  await assert.rejects(writeFileAtomic(target, '{}\n'));
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.includes('.tmp')),
    [],
  );
});

test('bad files are reported as problems; good records still load', async () => {
  const dir = tempDir();
  await writeHarness(dir, manifest, generated.records);
  const records = join(dir, 'records');
  writeFileSync(join(records, 'broken.json'), '{ not json');
  writeFileSync(join(records, 'wrong-shape.json'), JSON.stringify({ formatVersion: 1, id: 'x' }));
  writeFileSync(join(records, 'future.json'), JSON.stringify({ ...generated.records[0], id: 'future', formatVersion: 2 }));
  writeFileSync(join(records, 'notes.txt'), 'ignored: not a record file');
  const first = generated.records[0]!;
  writeFileSync(join(records, 'dupe.json'), JSON.stringify(first));
  const read = await readHarness(dir);
  const byFile = new Map(read.problems.map((p) => [p.file.split(/[\\/]/).pop(), p.message]));
  assert.match(byFile.get('broken.json') ?? '', /not JSON/);
  assert.match(byFile.get('wrong-shape.json') ?? '', /invalid record: tier/);
  assert.match(byFile.get('future.json') ?? '', /formatVersion/);
  assert.match(read.problems.find((p) => /duplicate record id/.test(p.message))?.message ?? '', new RegExp(first.id));
  assert.equal(read.problems.length, 4);
  assert.equal(read.records.length, generated.records.length);
});

test('a missing manifest, a bad manifest and a record the manifest names but lacks are problems', async () => {
  const empty = await readHarness(tempDir());
  assert.equal(empty.manifest, undefined);
  assert.equal(empty.records.length, 0);
  assert.equal(empty.problems.length, 2); // no manifest, no records folder

  const dir = tempDir();
  await writeHarness(dir, { ...manifest, recordIds: [...manifest.recordIds, 'ghost'] }, generated.records);
  const read = await readHarness(dir);
  assert.deepEqual(
    read.problems.map((p) => p.message),
    ['record "ghost" named by the manifest is missing'],
  );
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, status: 'done' }));
  assert.match((await readHarness(dir)).problems[0]?.message ?? '', /invalid manifest: status/);
});

test('record ids cannot escape records/: sanitised, and distinct ids stay distinct', async () => {
  const hostile = ['../../etc/passwd', '..\\..\\win', '/abs/path', '.hidden', 'a/b', 'a-b', 'C:\\x', '', '..', 'ok-id_1.v2'];
  const stems = hostile.map(recordFileStem);
  for (const s of stems) {
    assert.match(s, /^[A-Za-z0-9][A-Za-z0-9._-]*$/, s);
    assert.ok(!s.includes('..'), s);
  }
  assert.equal(new Set(stems).size, stems.length, 'no collisions');
  assert.equal(recordFileStem('ok-id_1.v2'), 'ok-id_1.v2', 'clean ids are kept as they are');

  const dir = tempDir();
  const record: HarnessRecord = { ...generated.records[0]!, id: '../../escape' };
  const file = await writeRecord(dir, record);
  assert.ok(resolve(file).startsWith(resolve(dir, 'records')), file);
  assert.ok(!existsSync(resolve(dir, '..', 'escape.json')));
  const read = await readHarness(dir);
  assert.equal(read.records[0]?.id, '../../escape', 'the id itself is kept inside the file');
});

test('the agent view has the task and the tool list, never the oracle', () => {
  const multi = generated.records.find((r) => r.conversation.length > 0) ?? generated.records[0]!;
  const toolNames = Object.keys(manifest.spec.toolHashes);
  const view = exportForAgent(multi, toolNames);
  assert.deepEqual(Object.keys(view).sort(), ['id', 'prompt', 'tools', 'turns']);
  assert.equal(view.prompt, multi.prompt);
  assert.deepEqual(
    view.turns,
    multi.conversation.map((t) => t.prompt),
  );
  assert.deepEqual(view.tools, toolNames);
  const text = JSON.stringify(view);
  assert.ok(!text.includes(multi.expected_response));
  for (const m of multi.mock_outputs) assert.ok(!text.includes(JSON.stringify(m.output)));
  for (const c of multi.expected_tools) assert.ok(!text.includes(JSON.stringify(c.arguments)));
  for (const key of ['expected_tools', 'mock_outputs', 'expected_response', 'provenance', 'toolHashes', 'checks']) assert.ok(!text.includes(key), key);
});

test('the checked-in JSON Schemas match the zod schemas (run scripts/gen-schemas.mjs after changing format.ts)', () => {
  const schemas = harnessJsonSchemas();
  for (const [key, file] of Object.entries(HARNESS_SCHEMA_FILES) as [keyof typeof schemas, string][]) {
    const onDisk = readFileSync(join(repoRoot, 'schemas', file), 'utf8');
    assert.equal(onDisk, stableJson(schemas[key]), `schemas/${file} is out of date`);
  }
});

test('the published JSON Schemas accept real records and manifests and reject broken ones', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const schemas = harnessJsonSchemas();
  const record = ajv.compile(schemas.record);
  const man = ajv.compile(schemas.manifest);
  for (const r of generated.records) assert.ok(record(JSON.parse(JSON.stringify(r))), JSON.stringify(record.errors));
  assert.ok(man(JSON.parse(JSON.stringify(manifest))), JSON.stringify(man.errors));
  assert.equal(record({ ...generated.records[0], tier: 'medium' }), false);
  assert.equal(record({ ...generated.records[0], oracle: [] }), false, 'unknown top-level keys are flagged');
  assert.equal(man({ ...manifest, status: 'done' }), false);
});

test('records carry no wall-clock time; the manifest does', () => {
  const text = JSON.stringify(generated.records);
  assert.ok(!/generatedAt|startedAt|finishedAt/.test(text));
  assert.ok(HarnessManifest.parse(manifest).timings.startedAt);
});

test('tool and spec hashes are over canonical JSON', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } }), '{"a":{"d":[2,{"y":2,"z":1}]},"b":1}');
  const tool = slack.tools[0]!;
  const reordered = Object.fromEntries(Object.entries(tool).reverse()) as typeof tool;
  assert.equal(toolHash(reordered), toolHash(tool));
  assert.match(specHash(slack), /^[0-9a-f]{64}$/);
  assert.notEqual(toolHash({ ...tool, description: 'changed' }), toolHash(tool));
  for (const r of generated.records) for (const [name, h] of Object.entries(r.provenance.toolHashes)) assert.equal(h, manifest.spec.toolHashes[name]);
});
