/** The diff of two snapshots of a spec: added, removed and changed tools, and which fields changed. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { diffSpecs, diffSummary, diffToolHashes, sameTools } from '../../../../src/core/harness/specDiff';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { specsDir } from '../../fixturePaths';

function slack(): ReturnType<typeof loadSpecText> & { ok: true } {
  const file = join(specsDir, 'slack.json');
  const load = loadSpecText(readFileSync(file, 'utf8'), file);
  assert.ok(load.ok);
  return load;
}

test('a snapshot diffed with itself (keys reordered) has no change', () => {
  const { spec } = slack();
  const reordered = { ...spec, tools: spec.tools.map((t) => Object.fromEntries(Object.entries(t).reverse()) as typeof t) };
  const d = diffSpecs(spec, reordered);
  assert.ok(sameTools(d));
  assert.equal(d.unchanged.length, spec.tools.length);
  assert.equal(diffSummary(d), 'no tool changed');
});

test('added, removed and changed tools, with the fields that differ', () => {
  const { spec } = slack();
  const [described, schemaChanged, removed, annotated] = spec.tools.map((t) => t.name);
  const after = {
    ...spec,
    tools: [
      ...spec.tools
        .filter((t) => t.name !== removed)
        .map((t) => {
          if (t.name === described) return { ...t, description: `${t.description ?? ''} Now paged.` };
          if (t.name === schemaChanged) return { ...t, inputSchema: { type: 'object', properties: { x: { type: 'string' } } } };
          if (t.name === annotated) return { ...t, annotations: { readOnlyHint: true } };
          return t;
        }),
      { name: 'slack_archive_channel', inputSchema: { type: 'object' } },
    ],
  };
  const d = diffSpecs(spec, after);
  assert.deepEqual(d.added, ['slack_archive_channel']);
  assert.deepEqual(d.removed, [removed]);
  assert.deepEqual(
    d.changed,
    [
      { name: described!, parts: ['description'] },
      { name: schemaChanged!, parts: ['inputSchema'] },
      { name: annotated!, parts: ['annotations'] },
    ].sort((a, b) => (a.name < b.name ? -1 : 1)),
  );
  assert.equal(d.unchanged.length, spec.tools.length - 4);
  assert.match(diffSummary(d), /^1 added \(slack_archive_channel\), 1 removed \(slack_reply_to_thread\), 3 changed \(.*slack_list_channels: description/);
});

test('the cheap diff of two hash tables names the same tools, without the fields', () => {
  const d = diffToolHashes({ a: '1', b: '2', c: '3' }, { a: '1', b: '9', d: '4' });
  assert.deepEqual(d, { added: ['d'], removed: ['c'], changed: [{ name: 'b', parts: [] }], unchanged: ['a'] });
  assert.equal(diffSummary(d), '1 added (d), 1 removed (c), 1 changed (b)');
});
