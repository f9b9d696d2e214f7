/**
 * A small harness generated offline from a fixture spec, served over Streamable HTTP by the real
 * mock server, for the tests that drive `serve` with real MCP clients.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Trajectory } from '../../src/core/agents/trajectory';
import type { ServedHarness } from '../../src/core/agents/mockServer';
import { specHash } from '../../src/core/harness/hash';
import { readHarness } from '../../src/core/harness/store';
import { runPipeline } from '../../src/core/pipeline/runner';
import { loadSpecText } from '../../src/core/spec/snapshot';
import { specsDir } from './fixturePaths';

/** A harness of `simple` + `complex` scenarios of a fixture spec, generated offline in a temporary folder. */
export async function offlineHarness(
  prefix: string,
  o: { spec?: string; simple: number; complex: number },
): Promise<{ root: string; dir: string; harness: ServedHarness; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const file = join(specsDir, o.spec ?? 'git-official.json');
  const load = loadSpecText(await readFile(file, 'utf8'), file);
  assert.ok(load.ok);
  const dir = join(root, 'h');
  await runPipeline({ spec: load.spec, provider: 'offline', outDir: dir, simple: o.simple, complex: o.complex });
  // In the order `agent-seer serve` serves them (readHarness's: by id).
  const { records } = await readHarness(dir);
  return {
    root,
    dir,
    harness: { spec: load.spec, records, specHash: specHash(load.spec) },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Every trajectory file in a folder, by file name. */
export async function trajectoriesIn(dir: string): Promise<Map<string, Trajectory>> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  return new Map(await Promise.all(names.map(async (n) => [n, Trajectory.parse(JSON.parse(await readFile(join(dir, n), 'utf8')))] as const)));
}

/**
 * Asserts that the i-th session served scenario i and that its trajectory holds exactly the
 * scenario's expected calls, each answered, from the client `client`.
 */
export async function assertServedInOrder(dir: string, harness: ServedHarness, client: string): Promise<void> {
  const got = await trajectoriesIn(dir);
  assert.equal(got.size, harness.records.length, `one trajectory per scenario: ${[...got.keys()].join(', ')}`);
  for (const record of harness.records) {
    const t = [...got.values()].find((x) => x.scenarioId === record.id);
    assert.ok(t, `scenario ${record.id} was served`);
    assert.equal(t.client?.name, client);
    assert.deepEqual(
      t.calls.map((c) => [c.name, c.expectedIndex, c.error]),
      record.expected_tools.map((c, i) => [c.name, i, undefined]),
      `scenario ${record.id}: every expected call answered`,
    );
    assert.equal(t.complete, true);
  }
}
