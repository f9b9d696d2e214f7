/** The scenario panel's view model and its messages: built from a real record, judgment and agent runs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeRecord } from '../../../../src/core/judge';
import { recordCallOffset } from '../../../../src/core/judge/locate';
import { stableJson } from '../../../../src/core/harness/store';
import { isScenarioMessage, isScenarioViewState, parseScenarioMessage } from '../../../../src/core/report/scenarioProtocol';
import { scenarioViewModel } from '../../../../src/core/report/scenarioView';
import { readRuns } from '../../../../src/core/agents/readRuns';
import { readHarness } from '../../../../src/core/harness/store';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { specsDir } from '../../fixturePaths';
import { runTwoAgents } from '../../agentRuns';
import { fileSpec, makeRecord } from '../../judgeFixtures';

test('a judged record: calls with arguments beside mock outputs, six argument sub-dimensions, findings at their argument, siblings', async () => {
  const spec = fileSpec();
  const base = makeRecord({
    id: 'r1',
    prompt: 'List /srv/data, at most five.',
    calls: [{ name: 'list_files', arguments: { path: '/srv/data', limit: 'five' } }],
    outputs: [{ files: ['a.txt'] }],
  });
  const record = { ...base, judgments: { offline: await judgeRecord(base, spec) } };
  const m = scenarioViewModel({ harnessDir: '/h', record, siblings: ['r0', 'r1', 'r2'], spec });
  assert.equal(m.title, 'r1');
  assert.equal(m.state, 'fail');
  assert.match(m.scoreLabel ?? '', /^exact \d\.\d\d \(offline; exact argument checks only: realism, coherence and tool choice not scored\)$/);
  assert.deepEqual(m.position, { index: 1, total: 3, previous: 'r0', next: 'r2' });
  assert.equal(m.turns.length, 1);
  assert.equal(m.turns[0]?.prompt, 'List /srv/data, at most five.');
  assert.equal(m.turns[0]?.followup, 'Done.');
  const call = m.calls[0]!;
  assert.deepEqual(call.arguments, { path: '/srv/data', limit: 'five' });
  assert.deepEqual(call.output, { files: ['a.txt'] });
  assert.match(call.errors.join('\n'), /limit.*integer/);
  const typeFinding = call.findings.find((f) => f.label === 'type compliance');
  assert.ok(typeFinding, JSON.stringify(call.findings));
  assert.equal(typeFinding.param, 'limit');
  const j = m.judgments[0]!;
  assert.equal(j.judge, 'offline');
  assert.deepEqual(
    j.dimensions.map((d) => d.label),
    ['Usage', 'Selection', 'Ordering', 'Arguments'],
  );
  assert.deepEqual(
    j.argumentSubs.map((d) => d.label),
    ['Completeness', 'Name accuracy', 'Value accuracy', 'Type compliance', 'Format compliance', 'Relevancy'],
  );
  assert.equal(j.argumentSubs.find((s) => s.key === 'arguments.type')?.value, 0.5);
  assert.equal(j.stale, false);
  assert.equal(m.checks.find((c) => c.label.startsWith('Arguments valid'))?.ok, false);
  // The model is JSON: it survives the trip to the webview unchanged.
  assert.deepEqual(JSON.parse(JSON.stringify(m)), m);
  assert.ok(isScenarioMessage({ type: 'scenario', model: m }));
});

test('a multi-turn record keeps its turns; the first and last scenario have no previous / next', () => {
  const record = makeRecord({
    id: 'm',
    prompt: 'Read a then b.',
    calls: [
      { name: 'read_file', arguments: { path: '/a' } },
      { name: 'read_file', arguments: { path: '/b' } },
    ],
    outputs: [{ content: 'A' }, { content: 'B' }],
    turns: [
      { prompt: 'Read /a', calls: [0], followup: 'A says A.' },
      { prompt: 'Now /b', calls: [1], followup: 'B says B.' },
    ],
  });
  const m = scenarioViewModel({ harnessDir: '/h', record, siblings: ['m'] });
  assert.deepEqual(
    m.turns.map((t) => [t.prompt, t.calls]),
    [
      ['Read /a', [0]],
      ['Now /b', [1]],
    ],
  );
  assert.equal(m.state, 'not-judged');
  assert.deepEqual(m.position, { index: 0, total: 1, previous: null, next: null });
});

test('agent runs of the scenario are listed and scored against it', async () => {
  const runs = await runTwoAgents('agent-seer-scnview-');
  try {
    const harness = await readHarness(runs.harness);
    const spec = loadSpecText(readFileSync(join(specsDir, 'git-official.json'), 'utf8'), 'git-official.json');
    assert.ok(spec.ok);
    const { agents } = await readRuns(runs.harness);
    const record = harness.records[0]!;
    const m = scenarioViewModel({ harnessDir: runs.harness, record, siblings: harness.records.map((r) => r.id), spec: spec.spec, runs: agents });
    // Two agents, two runs each.
    assert.equal(m.runs.length, 4, JSON.stringify(m.runs.map((r) => [r.agent, r.run])));
    const oracle = m.runs.filter((r) => r.agent === runs.oracle);
    assert.ok(oracle.length === 2 && oracle.every((r) => r.passed === true && r.calls.length === record.expected_tools.length));
  } finally {
    await runs.cleanup();
  }
});

test('page messages are checked: unknown or malformed ones are dropped', () => {
  assert.deepEqual(parseScenarioMessage({ type: 'ready' }), { type: 'ready' });
  assert.deepEqual(parseScenarioMessage({ type: 'navigate', to: 'next' }), { type: 'navigate', to: 'next' });
  assert.equal(parseScenarioMessage({ type: 'navigate', to: 'sideways' }), undefined);
  assert.deepEqual(parseScenarioMessage({ type: 'openJson', call: 2 }), { type: 'openJson', call: 2 });
  assert.equal(parseScenarioMessage({ type: 'openJson', call: -1 }), undefined);
  assert.equal(parseScenarioMessage({ type: 'openJson', call: '../../etc' }), undefined);
  assert.equal(parseScenarioMessage({ type: 'eval', code: 'x' }), undefined);
  assert.equal(parseScenarioMessage('ready'), undefined);
  assert.ok(isScenarioViewState({ harnessDir: '/h', id: 'r' }));
  assert.ok(!isScenarioViewState({ harnessDir: 1, id: 'r' }));
});

test('"Open JSON" lands on the call\'s name in the record text, else the title', () => {
  const record = makeRecord({
    id: 'o',
    prompt: 'p',
    calls: [
      { name: 'list_files', arguments: { path: '/a' } },
      { name: 'read_file', arguments: { path: '/a/x' } },
    ],
    outputs: [{}, {}],
  });
  const text = stableJson(record);
  const at = recordCallOffset(text, 1);
  assert.equal(text.slice(at, at + 6), '"name"');
  assert.ok(text.slice(at).startsWith('"name": "read_file"'), text.slice(at, at + 30));
  const top = recordCallOffset(text, null);
  assert.equal(text.slice(top, top + 7), '"title"');
  assert.equal(text.slice(recordCallOffset(text, 9), recordCallOffset(text, 9) + 7), '"title"');
  assert.equal(recordCallOffset('not json {', 0), 0);
});
