/** Multi-turn split checks: coverage, duplicates, indices, order, turn count, real tool names. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTurns } from '../../../../src/core/checks/turns';
import type { Spec } from '../../../../src/core/spec/model';

const workflow = [{ name: 'list' }, { name: 'get' }, { name: 'update' }, { name: 'get' }];
const spec: Spec = { name: 's', source: 'inline', invalidTools: [], tools: [{ name: 'list' }, { name: 'get' }, { name: 'update' }] };
const t = (...groups: number[][]): { calls: number[] }[] => groups.map((calls) => ({ calls }));

const cases: { name: string; turns: { calls: number[] }[]; kinds: string[]; coverage: number; wf?: { name: string }[] }[] = [
  { name: 'a valid split', turns: t([0, 1], [2, 3]), kinds: [], coverage: 1 },
  { name: 'a turn without calls is allowed', turns: t([0, 1], [], [2, 3]), kinds: [], coverage: 1 },
  { name: 'a call in no turn', turns: t([0, 1], [2]), kinds: ['missing-call'], coverage: 0.75 },
  { name: 'a call in two turns', turns: t([0, 1], [1, 2, 3]), kinds: ['duplicate-call'], coverage: 1 },
  { name: 'indices outside the workflow', turns: t([0, 1, -1], [2, 3, 4, 1.5]), kinds: ['bad-index'], coverage: 1 },
  { name: 'a single turn', turns: t([0, 1, 2, 3]), kinds: ['single-turn'], coverage: 1 },
  { name: 'no turns', turns: [], kinds: ['no-turns', 'missing-call'], coverage: 0 },
  { name: 'a later turn holds an earlier call', turns: t([0, 2], [1, 3]), kinds: ['order'], coverage: 1 },
  { name: 'out of order inside a turn', turns: t([1, 0], [2, 3]), kinds: ['order'], coverage: 1 },
  { name: 'a workflow call that is not a tool', turns: t([0], [1]), kinds: ['unknown-tool'], coverage: 1, wf: [{ name: 'list' }, { name: 'nope' }] },
];

for (const c of cases) {
  test(`checkTurns: ${c.name}`, () => {
    const r = checkTurns(c.turns, c.wf ?? workflow, spec);
    assert.deepEqual([...new Set(r.problems.map((p) => p.kind))].sort(), [...c.kinds].sort(), JSON.stringify(r.problems));
    assert.equal(r.ok, c.kinds.length === 0);
    assert.equal(r.coverage, c.coverage);
  });
}

test('checkTurns: problems name the turn and call', () => {
  const r = checkTurns(t([0, 1], [1, 2, 3]), workflow);
  assert.deepEqual(
    r.problems.map((p) => [p.kind, p.turn, p.callIndex]),
    [['duplicate-call', 1, 1]],
  );
});

test('checkTurns: without a spec, tool names are not checked', () => {
  assert.equal(checkTurns(t([0], [1]), [{ name: 'a' }, { name: 'b' }]).ok, true);
});
