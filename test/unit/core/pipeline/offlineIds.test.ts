/**
 * Record ids of the default offline run (the seed and tier sizes `agent-seer generate` uses when
 * given nothing) over every fixture spec: each is `s` or `c`, a three-digit ordinal, and a slug.
 * A scenario redrawn because its prompt repeated an earlier one once took its ordinal from the
 * redraw's key (`simple:6#1`), which gave ids like `sNaN-query-read-onlies-7` in postgres.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateOffline } from '../../../../src/core/pipeline/offline';
import { DEFAULT_COMPLEX, DEFAULT_SEED, DEFAULT_SIMPLE } from '../../../../src/core/workspace/defaults';
import { fixtureSpecFiles, loadFixtureSpec } from '../../fixturePaths';

const ID = /^[sc]\d{3,}-[a-z0-9]+(?:-[a-z0-9]+)*$/;

test('every record id of the default offline run of every fixture spec is tier, ordinal and slug (never NaN)', () => {
  const bad: string[] = [];
  for (const file of fixtureSpecFiles()) {
    const { records } = generateOffline(loadFixtureSpec(file), { seed: DEFAULT_SEED, simple: DEFAULT_SIMPLE, complex: DEFAULT_COMPLEX });
    assert.ok(records.length > 0, file);
    for (const r of records) if (!ID.test(r.id)) bad.push(`${file}: ${r.id}`);
    // Ordinals of a tier are 1…n without a gap: the redrawn scenario keeps its place.
    for (const tier of ['s', 'c']) {
      const ordinals = records.filter((r) => r.id.startsWith(tier)).map((r) => Number(r.id.slice(1, r.id.indexOf('-'))));
      assert.deepEqual(
        [...ordinals].sort((a, b) => a - b),
        ordinals.map((_, i) => i + 1),
        `${file}: ${tier} ordinals`,
      );
    }
  }
  assert.deepEqual(bad, []);
});
