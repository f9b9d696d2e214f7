/**
 * Grounding at generation (`src/core/pipeline/llm/statedValues.ts`, issue 21): which values a
 * request must state, the segment schema that carries them as one-value enum slots, and the join
 * that puts each value into the request whatever text surrounds it; and stage 4's repair that
 * gives a call back a value its turn's message lost (`restateLost` in `llm/turns.ts`). Whole runs
 * through the real clients are in `schemaOnly.test.ts`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groundWorkflow } from '../../../../src/core/checks/grounding';
import { schemaRuleViolations } from '../../../../src/core/llm/schemaRules';
import { joinSegments, segmentSchema, valuesToState } from '../../../../src/core/pipeline/llm/statedValues';
import { restateLost } from '../../../../src/core/pipeline/llm/turns';
import type { Scenario } from '../../../../src/core/pipeline/schemas';
import type { Spec } from '../../../../src/core/spec/model';

const spec = {
  name: 'chat',
  tools: [
    {
      name: 'list_messages',
      inputSchema: {
        type: 'object',
        properties: { channel: { type: 'string' }, limit: { type: 'number' }, order: { type: 'string', enum: ['asc', 'desc'] } },
      },
    },
    { name: 'get_message', inputSchema: { type: 'object', properties: { message_id: { type: 'string' }, limit: { type: 'number' } } } },
  ],
} as unknown as Spec;

const scenario = (prompt: string): Scenario => ({
  title: 't',
  prompt,
  novelty_reason: '',
  agent_followup: '',
  agent_workflow: [
    { name: 'list_messages', arguments: { channel: 'C0123', limit: 25, order: 'desc' }, explanation: '' },
    { name: 'get_message', arguments: { message_id: 'msg_77', limit: 25 }, explanation: '' },
  ],
});

describe('the values a request must state', () => {
  it("every value but the schema's own and the later IDs an earlier output will supply; a count once per call; the ones already said are marked", () => {
    const s = scenario('Show me the latest messages in C0123.');
    const values = valuesToState(s, spec, [{ consumer: 1, param: 'message_id', value: 'msg_77', producer: 0 }]);
    assert.deepEqual(
      values.map((v) => [v.value, v.uses.map((u) => `${u.callIndex}.${u.param}`).join(','), v.stated]),
      [
        ['C0123', '0.channel', true],
        [25, '0.limit', false],
        [25, '1.limit', false],
      ],
    );
    // A later ID no earlier call can hold is the user's to say.
    const unhosted = valuesToState(s, spec, [{ consumer: 1, param: 'message_id', value: 'msg_77', producer: undefined }]);
    assert.ok(unhosted.some((v) => v.value === 'msg_77' && !v.stated));
  });

  it('the segment schema keeps the shared rules and holds each value as a one-value enum of its type', () => {
    const values = valuesToState(scenario('x'), spec, []);
    const schema = segmentSchema(values) as { properties: Record<string, { type: string; enum?: unknown[] }>; required: string[] };
    assert.deepEqual(schemaRuleViolations(schema), []);
    assert.deepEqual(Object.keys(schema.properties), ['text_0', 'value_0', 'text_1', 'value_1', 'text_2', 'value_2', 'text_3', 'value_3', 'text_4']);
    assert.deepEqual([schema.properties.value_1!.type, schema.properties.value_1!.enum], ['number', [25]]);
    assert.deepEqual([schema.properties.value_0!.type, schema.properties.value_0!.enum], ['string', ['C0123']]);
    assert.deepEqual(schema.required, Object.keys(schema.properties));
  });
});

describe('joining the segments', () => {
  it('every value stands on its own whatever the texts around it, so grounding finds each one', () => {
    const s = scenario('');
    const values = valuesToState(s, spec, []);
    for (const texts of [
      ['', '', '', '', ''],
      ['channel:', 'limit', 'x', 'y', 'z'],
      ['In "', '", show', 'messages, then', 'more for', '.'],
      ['a-', '-b', '_c', '.d', ':e'],
    ]) {
      const prompt = joinSegments(
        texts,
        values.map((v) => v.value),
      );
      const grounded = groundWorkflow({ calls: s.agent_workflow, outputs: [undefined, undefined], turns: [{ prompt, calls: [0, 1] }], spec });
      const none = grounded.filter((g) => g.source.kind === 'none' && g.param !== 'message_id');
      assert.deepEqual(none, [], `${JSON.stringify(texts)} → ${prompt}`);
    }
    assert.equal(joinSegments(['Post in (', ') at most', 'items.'], ['C1', 5]), 'Post in (C1) at most 5 items.');
  });
});

describe('a turn split that loses a value the request states', () => {
  it("gets it back in the message of its call's turn, once per argument", () => {
    const s = scenario('List 25 messages in C0123 newest first, then open msg_77 with 25 replies.');
    const turns = [
      { prompt: 'Show me what is new.', calls: [0], followup: '' },
      { prompt: 'Open the first one.', calls: [1], followup: '' },
    ];
    const lost = groundWorkflow({ calls: s.agent_workflow, outputs: [undefined, undefined], turns, spec }).filter((g) => g.source.kind === 'none');
    assert.ok(lost.length >= 3);
    const fixed = restateLost(turns, lost);
    assert.equal(fixed[0]!.prompt, 'Show me what is new. (channel: C0123; limit: 25)');
    const after = groundWorkflow({ calls: s.agent_workflow, outputs: [undefined, undefined], turns: fixed, spec });
    assert.deepEqual(
      after.filter((g) => g.source.kind === 'none'),
      [],
    );
    assert.deepEqual(turns[0]!.prompt, 'Show me what is new.', 'the input is not changed');
  });
});
