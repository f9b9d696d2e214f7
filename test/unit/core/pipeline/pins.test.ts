/**
 * Integrity in the reply schema (`pipeline/llm/pins.ts`): where the values a later call takes are
 * fixed in an earlier output's slot, on real fixture specs, and that every slot stays within the
 * schema subset both providers take.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec, Tool } from '../../../../src/core/spec/model';
import { DETAILS_FIELD, pinnedOutputSlot, planPins, unheldValues } from '../../../../src/core/pipeline/llm/pins';
import { mockReplySchema, responseText } from '../../../../src/core/pipeline/llm/mock';
import { schemaRuleViolations } from '../../../../src/core/llm/schemaRules';
import { validateOutput } from '../../../../src/core/checks/validateCall';
import type { Scenario } from '../../../../src/core/pipeline/schemas';
import { specsDir } from '../../fixturePaths';

function fixture(name: string): Spec {
  const file = join(specsDir, name);
  const r = loadSpecText(readFileSync(file, 'utf8'), file);
  assert.ok(r.ok);
  return r.spec;
}
const tool = (spec: Spec, name: string): Tool => spec.tools.find((t) => t.name === name)!;
const scenario = (prompt: string, calls: { name: string; arguments: Record<string, unknown> }[]): Scenario => ({
  title: 't',
  prompt,
  agent_workflow: calls.map((c) => ({ ...c, explanation: '' })),
  novelty_reason: '',
  agent_followup: '',
});
type Json = Record<string, unknown>;
const props = (schema: Json): Json => schema.properties as Json;

describe('values fixed in the mock reply schema', () => {
  const slack = fixture('slack.json');
  const mongodb = fixture('mongodb.json');
  const redis = fixture('redis-mcp-0.5.0.json');

  it('a tool without an outputSchema: its own ids echoed, a later call’s value in a field of its name, the rest as JSON details', () => {
    const s = scenario('Read the incident channel.', [
      { name: 'slack_list_channels', arguments: { limit: 50 } },
      { name: 'slack_get_channel_history', arguments: { channel_id: 'C07QX2M8K1P', limit: 5 } },
    ]);
    const plan = planPins(slack, s);
    assert.deepEqual(plan.holder, [0]);
    const slot = pinnedOutputSlot(tool(slack, 'slack_list_channels'), plan.pins[0]!);
    assert.deepEqual(props(slot.schema).channel_id, { type: 'string', enum: ['C07QX2M8K1P'], description: 'A value a later call takes from this response.' });
    assert.ok(DETAILS_FIELD in props(slot.schema));
    // The details are laid under the pinned field; a field of the same name in them loses.
    assert.deepEqual(slot.decode({ channel_id: 'C07QX2M8K1P', [DETAILS_FIELD]: '{"ok":true,"channel_id":"C999","channels":[]}' }), {
      channel_id: 'C07QX2M8K1P',
      ok: true,
      channels: [],
    });
    // Plain text stays text, in a field of its own, never glued to the value.
    assert.deepEqual(slot.decode({ channel_id: 'C07QX2M8K1P', [DETAILS_FIELD]: 'Found 3 channels.' }), {
      channel_id: 'C07QX2M8K1P',
      text: 'Found 3 channels.',
    });
    const history = pinnedOutputSlot(tool(slack, 'slack_get_channel_history'), plan.pins[1]!);
    assert.deepEqual((props(history.schema).channel_id as Json).enum, ['C07QX2M8K1P'], 'the read echoes its own channel');
  });

  it('a held value never takes the root id or name of a read: it gets a field of its own', () => {
    const s = scenario('Show me the profile of U024BE7LH and then the user after them.', [
      { name: 'slack_get_user_profile', arguments: { user_id: 'U024BE7LH' } },
      { name: 'slack_get_user_profile', arguments: { user_id: 'U0ZZ99XY7' } },
    ]);
    const plan = planPins(slack, s);
    const slot = pinnedOutputSlot(tool(slack, 'slack_get_user_profile'), plan.pins[0]!);
    assert.deepEqual(Object.keys(props(slot.schema)).sort(), [DETAILS_FIELD, 'related_user_id', 'user_id'].sort());
    assert.deepEqual((props(slot.schema).user_id as Json).enum, ['U024BE7LH']);
    assert.deepEqual((props(slot.schema).related_user_id as Json).enum, ['U0ZZ99XY7']);
  });

  it('an outputSchema list of objects: the item field takes the value and the list becomes one item long', () => {
    const s = scenario('Insert the documents into the orders collection.', [
      { name: 'list-connections', arguments: {} },
      { name: 'find', arguments: { connectionId: 'cnn_4411', database: 'shop', collection: 'orders' } },
    ]);
    const plan = planPins(mongodb, s);
    assert.deepEqual(plan.holder, [0]);
    const slot = pinnedOutputSlot(tool(mongodb, 'list-connections'), plan.pins[0]!);
    const list = props(slot.schema).connections as Json;
    assert.equal(list.minItems, 1);
    assert.equal(list.maxItems, 1);
    assert.deepEqual((props(list.items as Json).connectionId as Json).enum, ['cnn_4411']);
  });

  it('a closed outputSchema with no field for the value cannot hold it: the user must state it', () => {
    const s = scenario('How big is the orders collection, then drop it.', [
      { name: 'collection-storage-size', arguments: { connectionId: 'cnn_1', database: 'shop', collection: 'orders' } },
      { name: 'drop-collection', arguments: { connectionId: 'cnn_2', database: 'shop', collection: 'orders' } },
    ]);
    assert.deepEqual(
      unheldValues(mongodb, s).map((r) => r.value),
      ['cnn_2'],
    );
  });

  it('an open outputSchema gets a root field for the value; a free-form object’s entries are not fields', () => {
    const s = scenario('What type is key ticket:1, and delete key ticket:2 after?', [
      { name: 'type', arguments: { key: 'ticket:usr_1' } },
      { name: 'delete', arguments: { key: 'ticket:usr_2' } },
    ]);
    const plan = planPins(redis, s);
    const t = tool(redis, 'type');
    const slot = pinnedOutputSlot(t, plan.pins[0]!);
    const root = props(slot.schema);
    assert.deepEqual((root.key as Json).enum, ['ticket:usr_1'], 'echo at the root');
    assert.deepEqual((root.key_2 as Json).enum, ['ticket:usr_2'], 'the later value beside it');
    assert.equal(JSON.stringify(root.result).includes('enum'), false, "the map's {key, value} entries are left alone");
    const out = slot.decode({ result: [{ key: 'type', value: '"hash"' }], key: 'ticket:usr_1', key_2: 'ticket:usr_2' });
    assert.equal(validateOutput(t, out)?.ok, true, 'valid against the tool’s own schema');
  });

  it('every mock reply schema with pins stays within the subset both providers take', () => {
    for (const [spec, s] of [
      [
        slack,
        scenario('x', [
          { name: 'slack_list_channels', arguments: {} },
          { name: 'slack_get_channel_history', arguments: { channel_id: 'C07QX2M8K1P' } },
        ]),
      ],
      [
        mongodb,
        scenario('x', [
          { name: 'list-connections', arguments: {} },
          { name: 'find', arguments: { connectionId: 'cnn_4411', database: 'a', collection: 'b' } },
        ]),
      ],
      [
        redis,
        scenario('x', [
          { name: 'type', arguments: { key: 'ticket:usr_1' } },
          { name: 'delete', arguments: { key: 'ticket:usr_2' } },
        ]),
      ],
    ] as const) {
      const plan = planPins(spec, s);
      const reply = mockReplySchema(
        s.agent_workflow.map((c) => tool(spec, c.name)),
        plan.pins,
      );
      assert.deepEqual(schemaRuleViolations(reply.jsonSchema), []);
    }
  });

  it('the answer segments join into prose around the value', () => {
    assert.equal(responseText({ before: 'Channel', value: 'C07QX2M8K1P', after: '. It has 3 new messages.' }), 'Channel C07QX2M8K1P. It has 3 new messages.');
    assert.equal(responseText({ before: 'Read ', value: 'C07QX2M8K1P', after: ' and found nothing new.' }), 'Read C07QX2M8K1P and found nothing new.');
    assert.equal(responseText('Plain text stays.'), 'Plain text stays.');
  });
});
