/**
 * Grounding tiers as the paper's Table 9 defines them: high only for a concrete example output
 * of this very tool, medium for examples of a similar tool, low otherwise. An `outputSchema` is
 * not an example: it is recorded apart (`mock_outputs[i].outputSchema`) and leaves the tier low.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groundingOf } from '../../../../src/core/pipeline/llm/mock';
import type { StageContext } from '../../../../src/core/pipeline/llm/context';
import { assembleRecord } from '../../../../src/core/pipeline/assembleRecord';
import type { Spec } from '../../../../src/core/spec/model';

const spec: Spec = {
  name: 'files',
  source: 'inline',
  invalidTools: [],
  tools: [
    {
      name: 'get_file',
      description: 'Read a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    { name: 'delete_file', description: 'Delete a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  ],
};

// groundingOf reads only the spec and the examples of the stage context.
const ctx = (examples: Record<string, unknown[]>): StageContext => ({ spec, examples: new Map(Object.entries(examples)) }) as unknown as StageContext;

test('an outputSchema alone is not "high": the tier is low, the schema is still the reference', () => {
  const g = groundingOf(ctx({}), spec.tools[0]);
  assert.equal(g.grounding, 'low');
  assert.match(g.reference, /Output schema of this tool/);
});

test('a concrete example of this very tool is "high"; a similar tool\'s outputSchema is not an example (low, not medium)', () => {
  assert.equal(groundingOf(ctx({ get_file: [{ text: 'hello' }] }), spec.tools[0]).grounding, 'high');
  assert.equal(groundingOf(ctx({}), spec.tools[1]).grounding, 'low');
});

test('the record says apart from the tier whether the tool declares an outputSchema', () => {
  const record = assembleRecord(spec, {
    id: 's001',
    tier: 'simple',
    category: 'files',
    scenario: {
      title: 't',
      prompt: 'Read /a then delete it.',
      novelty_reason: 'n',
      agent_followup: 'f',
      agent_workflow: [
        { name: 'get_file', arguments: { path: '/a' }, explanation: 'read' },
        { name: 'delete_file', arguments: { path: '/a' }, explanation: 'delete' },
      ],
    },
    mockWorkflow: [
      { name: 'get_file', output: { text: 'x' }, grounding: 'low' },
      { name: 'delete_file', output: { deleted: true }, grounding: 'low' },
    ],
    expectedResponse: 'Done.',
    conversation: [],
    provenance: { generator: 'test', stageProviders: {} } as never,
  });
  assert.deepEqual(
    record.mock_outputs.map((m) => [m.grounding, m.outputSchema]),
    [
      ['low', true],
      ['low', false],
    ],
  );
});
