/** Judge findings placed in record files for inline diagnostics. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeRecord } from '../../../../src/core/judge';
import { judgmentDiagnostics } from '../../../../src/core/judge/locate';
import { subdimensionLabel } from '../../../../src/core/vocabulary';
import { stableJson } from '../../../../src/core/harness/store';
import { fileSpec, makeRecord } from '../../judgeFixtures';

/** The text a 0-based range covers. */
function slice(text: string, r: { start: { line: number; character: number }; end: { line: number; character: number } }): string {
  const lines = text.split('\n');
  if (r.start.line !== r.end.line) return '';
  return (lines[r.start.line] ?? '').slice(r.start.character, r.end.character);
}

test('an exact failure on an argument is placed on that argument key in the record file', async () => {
  const spec = fileSpec();
  const record = makeRecord({
    id: 'r1',
    prompt: 'List the files in /srv/data, at most five.',
    calls: [{ name: 'list_files', arguments: { path: '/srv/data', limit: 'five' } }],
    outputs: [{ files: [] }],
  });
  const judgment = await judgeRecord(record, spec);
  const text = stableJson({ ...record, judgments: { offline: judgment } });
  const diags = judgmentDiagnostics(text);
  const typeDiag = diags.find((d) => d.code === 'arguments.type');
  assert.ok(typeDiag, JSON.stringify(diags.map((d) => d.code)));
  assert.equal(slice(text, typeDiag.range), '"limit"');
  assert.match(typeDiag.message, /^type compliance 0\.5: 'limit' must be integer \(offline\)$/);
  assert.equal(typeDiag.judgeId, 'offline');
  // 0.5 is above the error line (0.3): a warning.
  assert.equal(typeDiag.severity, 'warning');
});

test('an ungrounded value is placed on its argument, a nested one on its own element', async () => {
  const spec = fileSpec();
  const record = makeRecord({
    id: 'r5',
    prompt: 'Read the report in /srv.',
    calls: [
      { name: 'list_files', arguments: { path: '/srv' } },
      { name: 'read_file', arguments: { path: '/srv/q3-report.txt' } },
      { name: 'search_files', arguments: { query: 'report', scope: { ids: ['doc-7731x'] } } },
    ],
    outputs: [{ files: ['q2-report.txt'] }, { text: 'hi' }, {}],
  });
  const text = stableJson({ ...record, judgments: { offline: await judgeRecord(record, spec) } });
  const value = judgmentDiagnostics(text).filter((d) => d.code === 'arguments.value');
  assert.deepEqual(
    value.map((d) => slice(text, d.range)),
    ['"path"', '"doc-7731x"'],
  );
  assert.match(value[0]?.message ?? '', /^value accuracy 0\.0: 'path' = "\/srv\/q3-report\.txt" \(path\) occurs in neither/);
  assert.equal(value[0]?.severity, 'error');
});

test('an unknown tool is placed on the call name; a clean record has no diagnostics', async () => {
  const spec = fileSpec();
  const bad = makeRecord({
    id: 'r2',
    prompt: 'Zap /tmp/x.',
    calls: [{ name: 'zap_file', arguments: { path: '/tmp/x' } }],
    outputs: [{}],
  });
  const text = stableJson({ ...bad, judgments: { offline: await judgeRecord(bad, spec) } });
  const diags = judgmentDiagnostics(text);
  assert.ok(
    diags.some((d) => slice(text, d.range) === '"zap_file"'),
    JSON.stringify(diags),
  );

  const good = makeRecord({
    id: 'r3',
    prompt: 'Read /tmp/a.txt.',
    calls: [{ name: 'read_file', arguments: { path: '/tmp/a.txt' } }],
    outputs: [{ content: 'hi' }],
  });
  const goodText = stableJson({ ...good, judgments: { offline: await judgeRecord(good, spec) } });
  assert.deepEqual(judgmentDiagnostics(goodText), []);
});

test('filtering by judge id, and records without judgments or broken JSON give nothing', async () => {
  const spec = fileSpec();
  const record = makeRecord({ id: 'r4', prompt: 'List /a.', calls: [{ name: 'list_files', arguments: { path: '/a', limit: 'x' } }], outputs: [{}] });
  const text = stableJson({ ...record, judgments: { offline: await judgeRecord(record, spec) } });
  assert.ok(judgmentDiagnostics(text, 'offline').length > 0);
  assert.equal(judgmentDiagnostics(text, 'gemini:gemini-2.5-flash').length, 0);
  assert.deepEqual(judgmentDiagnostics(stableJson(record)), []);
  assert.deepEqual(judgmentDiagnostics('{"judgments": {'), []);
});

test('sub-dimension labels read as the paper names them', () => {
  assert.equal(subdimensionLabel('arguments.value'), 'value accuracy');
  assert.equal(subdimensionLabel('arguments.completeness'), 'argument completeness');
  assert.equal(subdimensionLabel('ordering.dependency_handling'), 'dependency handling');
});
