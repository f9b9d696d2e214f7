import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { toolHashes } from '../../../../src/core/harness/hash';
import { staleTools } from '../../../../src/core/harness/stale';
import { generateOffline } from '../../../../src/core/pipeline/offline';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { specsDir } from '../../fixturePaths';

test('a record is stale exactly for the tools it uses that changed or vanished', () => {
  const file = join(specsDir, 'slack.json');
  const load = loadSpecText(readFileSync(file, 'utf8'), file);
  assert.ok(load.ok);
  const spec = load.spec;
  const { records } = generateOffline(spec, { seed: 1, simple: 4, complex: 4 });
  const unchanged = toolHashes(spec);
  for (const r of records) assert.deepEqual(staleTools(r, unchanged), []);

  // Change one tool's description and remove another.
  const [changed, removed] = [spec.tools[0]!.name, spec.tools[1]!.name];
  const edited = {
    ...spec,
    tools: spec.tools.filter((t) => t.name !== removed).map((t) => (t.name === changed ? { ...t, description: `${t.description ?? ''} (edited)` } : t)),
  };
  const current = toolHashes(edited);
  for (const r of records) {
    const used = new Set(r.expected_tools.map((c) => c.name));
    const expected = [changed, removed].filter((n) => used.has(n)).sort();
    assert.deepEqual(staleTools(r, current), expected, r.id);
  }
  assert.ok(
    records.some((r) => staleTools(r, current).length > 0),
    'some record uses a changed tool',
  );
});
