/**
 * Schema readers share nodes (issue 18, item 3): a chain of `$defs` that each name the next one
 * twice costs its size, not 2^length, and a `$ref` cycle through union branches or array items
 * ends instead of overflowing the stack.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { schemaKeyword } from '../../../../src/core/checks/grounding';
import { schemaExpansion } from '../../../../src/core/checks/schemaExpansion';
import { MAX_SCHEMA_EXPANSION } from '../../../../src/core/bounds';
import { schemaRuleViolations } from '../../../../src/core/llm/schemaRules';
import { argumentSchema } from '../../../../src/core/pipeline/llm/argumentSchema';
import { callableTools } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { anyOfChainSpec } from '../../hostileSchemas';

const chainSchema = (): Record<string, unknown> => (anyOfChainSpec() as { tools: { inputSchema: Record<string, unknown> }[] }).tools[1]!.inputSchema;

test('schemaKeyword reads a parameter 20 levels down a 30-$defs anyOf chain through shared nodes', () => {
  const schema = chainSchema();
  // The last def's object branch offers an enum: give the chain's string end one.
  const defs = schema.$defs as Record<string, { anyOf: unknown[] }>;
  defs.n29!.anyOf[0] = { type: 'string', enum: ['leaf'] };
  const path = ['start', ...Array<string>(20).fill('v')].join('.');
  const started = performance.now();
  // Before: every path step multiplied the node list by the branches below it (2.36 GB, then a crash).
  assert.equal(schemaKeyword(schema, path, 'leaf'), 'enum');
  assert.equal(schemaKeyword(schema, path, 'other'), undefined);
  assert.ok(performance.now() - started < 2000);
});

test('schemaExpansion stops at the budget on a 2^30 expansion and counts a recursive schema once per path', () => {
  assert.equal(schemaExpansion(chainSchema()), MAX_SCHEMA_EXPANSION + 1);
  const tree = { $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } } } }, $ref: '#/$defs/node' };
  // The root, the node, `children`, its items' $ref (back to the node: not entered again).
  assert.equal(schemaExpansion(tree), 4);
});

test('argumentSchema ends on a $ref cycle through anyOf branches or array items, within the response-schema rules', () => {
  const viaUnion = {
    type: 'object',
    $defs: { a: { anyOf: [{ $ref: '#/$defs/a' }, { type: 'string' }] } },
    properties: { x: { $ref: '#/$defs/a' } },
    required: ['x'],
  };
  const viaItems = { type: 'object', $defs: { l: { type: 'array', items: { $ref: '#/$defs/l' } } }, properties: { x: { $ref: '#/$defs/l' } }, required: ['x'] };
  for (const schema of [viaUnion, viaItems]) assert.deepEqual(schemaRuleViolations(argumentSchema(schema).schema), []);
  // What the subset cannot say travels as JSON text and comes back parsed.
  assert.deepEqual(argumentSchema(viaUnion).decode({ x: '"hi"' }), { x: 'hi' });
  assert.deepEqual(argumentSchema(viaItems).decode({ x: ['["a"]'] }), { x: [['a']] });
});

test('the LLM stages skip a tool past the expansion budget with the reason, before building its response schema', () => {
  const load = loadSpecText(JSON.stringify(anyOfChainSpec()), 'chain.json');
  assert.ok(load.ok);
  const { callable, skipped } = callableTools(load.spec);
  assert.deepEqual(
    callable.map((t) => t.name),
    ['get_note'],
  );
  assert.equal(skipped.length, 1);
  assert.equal(skipped[0]!.tool, 'walk_chain');
  assert.match(skipped[0]!.reason, new RegExp(`^inputSchema expands to more than ${MAX_SCHEMA_EXPANSION} schema nodes`));
});
