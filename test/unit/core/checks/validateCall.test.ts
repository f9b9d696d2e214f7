/** Exact call validation: every error kind, both JSON Schema drafts, broken schemas, name suggestions, the real fixtures. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallErrorKind } from '../../../../src/core/harness/format';
import { compileSchema, nearestName, validateCall, validateOutput } from '../../../../src/core/checks/validateCall';
import type { Spec, Tool } from '../../../../src/core/spec/model';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { specsDir } from '../../fixturePaths';

const DRAFT7 = 'http://json-schema.org/draft-07/schema#';
const DRAFT2020 = 'https://json-schema.org/draft/2020-12/schema';

const tools: Tool[] = [
  {
    name: 'create_issue',
    inputSchema: {
      $schema: DRAFT7,
      type: 'object',
      properties: {
        owner: { type: 'string' },
        repo: { type: 'string' },
        title: { type: 'string' },
        labels: { type: 'array', items: { type: 'string' } },
        priority: { type: 'string', enum: ['low', 'high'] },
        due: { type: 'string', format: 'date' },
        count: { type: 'integer', minimum: 1 },
        assignee: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['owner', 'repo', 'title'],
    },
  },
  // 2020-12: prefixItems is a tuple; under draft-07 it would be an ignored unknown keyword.
  {
    name: 'search',
    inputSchema: {
      $schema: DRAFT2020,
      type: 'object',
      properties: { q: { type: 'string' }, pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } },
      required: ['q'],
    },
  },
  // draft-07: `items` as an array is the tuple form.
  {
    name: 'tuple07',
    inputSchema: { $schema: DRAFT7, type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } } },
  },
  {
    name: 'old_draft',
    inputSchema: {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { a: { type: 'string' }, n: { type: 'integer', minimum: 0, exclusiveMinimum: true } },
      required: ['a'],
    },
  },
  { name: 'custom_dialect', inputSchema: { $schema: 'https://example.com/my-dialect', type: 'object', properties: { a: { type: 'string' } } } },
  { name: 'bad_type', inputSchema: { type: 'object', properties: { a: { type: 'strng' } } } },
  { name: 'bad_ref', inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } } },
  { name: 'empty_schema', inputSchema: { $schema: DRAFT7 } },
  { name: 'open_object', inputSchema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true } },
  { name: 'closed_object', inputSchema: { type: 'object', properties: { title: { type: 'string' } }, additionalProperties: false } },
  {
    name: 'with_refs',
    inputSchema: {
      type: 'object',
      properties: { parent: { $ref: '#/$defs/parent' } },
      required: ['parent'],
      $defs: { parent: { type: 'object', properties: { page_id: { type: 'string', format: 'uuid' } }, required: ['page_id'] } },
    },
    outputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  },
  { name: 'same_id_a', inputSchema: { $id: 'urn:shared', type: 'object', properties: { a: { type: 'string' } } } },
  { name: 'same_id_b', inputSchema: { $id: 'urn:shared', type: 'object', properties: { b: { type: 'integer' } } } },
];
const spec: Spec = { name: 'test', source: 'inline', tools, invalidTools: [] };

const base = { owner: 'acme', repo: 'widgets', title: 'Fix totals' };

interface Case {
  name: string;
  call: { name: string; arguments: unknown };
  ok: boolean;
  kinds?: CallErrorKind[];
  param?: string;
  message?: RegExp;
  options?: { rejectUnknownParams?: boolean };
  /** Exact number of errors, when it matters (folding, no duplicates). */
  count?: number;
}

const cases: Case[] = [
  {
    name: 'valid draft-07 call',
    call: { name: 'create_issue', arguments: { ...base, labels: ['bug'], priority: 'high', due: '2026-05-01', count: 2, assignee: null } },
    ok: true,
  },
  {
    name: 'unknown tool suggests the nearest name',
    call: { name: 'create_isue', arguments: base },
    ok: false,
    kinds: ['unknown-tool'],
    message: /did you mean 'create_issue'/,
  },
  {
    name: 'unknown tool, nothing close',
    call: { name: 'zzzzzzzzzz', arguments: {} },
    ok: false,
    kinds: ['unknown-tool'],
    message: /^unknown tool 'zzzzzzzzzz'$/,
  },
  { name: 'missing required', call: { name: 'create_issue', arguments: { owner: 'acme', repo: 'w' } }, ok: false, kinds: ['missing-required'], param: 'title' },
  {
    name: 'invented parameter (no additionalProperties in schema)',
    call: { name: 'create_issue', arguments: { ...base, titel: 'x' } },
    ok: false,
    kinds: ['unknown-param'],
    param: 'titel',
    message: /did you mean 'title'/,
  },
  {
    name: 'invented parameter allowed when the option is off',
    call: { name: 'create_issue', arguments: { ...base, extra: 1 } },
    ok: true,
    options: { rejectUnknownParams: false },
  },
  {
    name: 'additionalProperties:false reported once, with suggestion',
    call: { name: 'closed_object', arguments: { titl: 'x' } },
    ok: false,
    kinds: ['unknown-param'],
    message: /did you mean 'title'/,
    count: 1,
  },
  { name: 'explicit additionalProperties:true is respected', call: { name: 'open_object', arguments: { a: 'x', b: 2 } }, ok: true },
  { name: 'type', call: { name: 'create_issue', arguments: { ...base, count: '3' } }, ok: false, kinds: ['type'], param: 'count' },
  {
    name: 'anyOf of types folds into one type error',
    call: { name: 'create_issue', arguments: { ...base, assignee: 7 } },
    ok: false,
    kinds: ['type'],
    param: 'assignee',
    message: /must be string or null/,
    count: 1,
  },
  { name: 'enum', call: { name: 'create_issue', arguments: { ...base, priority: 'urgent' } }, ok: false, kinds: ['enum'], param: 'priority' },
  { name: 'format', call: { name: 'create_issue', arguments: { ...base, due: 'tomorrow' } }, ok: false, kinds: ['format'], param: 'due' },
  { name: 'other (minimum)', call: { name: 'create_issue', arguments: { ...base, count: 0 } }, ok: false, kinds: ['other'], param: 'count' },
  {
    name: 'nested type error has a dotted path',
    call: { name: 'create_issue', arguments: { ...base, labels: ['ok', 5] } },
    ok: false,
    kinds: ['type'],
    param: 'labels.1',
  },
  { name: 'arguments must be an object (null)', call: { name: 'create_issue', arguments: null }, ok: false, kinds: ['type'] },
  { name: 'arguments must be an object (array)', call: { name: 'create_issue', arguments: [] }, ok: false, kinds: ['type'] },
  { name: '2020-12 prefixItems enforced', call: { name: 'search', arguments: { q: 'x', pair: ['a', 'b'] } }, ok: false, kinds: ['type'], param: 'pair.1' },
  { name: '2020-12 valid', call: { name: 'search', arguments: { q: 'x', pair: ['a', 2] } }, ok: true },
  { name: 'draft-07 tuple items enforced', call: { name: 'tuple07', arguments: { pair: ['a', 'b'] } }, ok: false, kinds: ['type'], param: 'pair.1' },
  { name: 'draft-04 $schema stripped, still validates', call: { name: 'old_draft', arguments: {} }, ok: false, kinds: ['missing-required'], param: 'a' },
  { name: 'draft-04 boolean exclusiveMinimum is honoured', call: { name: 'old_draft', arguments: { a: 'x', n: 0 } }, ok: false, kinds: ['other'], param: 'n' },
  { name: 'draft-04 boolean exclusiveMinimum, valid value', call: { name: 'old_draft', arguments: { a: 'x', n: 1 } }, ok: true },
  { name: 'unknown $schema stripped', call: { name: 'custom_dialect', arguments: { a: 'x' } }, ok: true },
  {
    name: 'uncompilable type is an error, not a throw',
    call: { name: 'bad_type', arguments: { a: 'x' } },
    ok: false,
    kinds: ['other'],
    message: /inputSchema of 'bad_type' cannot be compiled/,
  },
  { name: 'unresolvable $ref is an error, not a throw', call: { name: 'bad_ref', arguments: {} }, ok: false, kinds: ['other'], message: /cannot be compiled/ },
  { name: 'schema declaring nothing accepts {}', call: { name: 'empty_schema', arguments: {} }, ok: true },
  {
    name: 'schema declaring nothing rejects any argument',
    call: { name: 'empty_schema', arguments: { project_id: '1' } },
    ok: false,
    kinds: ['unknown-param'],
    message: /declares no parameters/,
  },
  {
    name: '$ref into $defs, format inside',
    call: { name: 'with_refs', arguments: { parent: { page_id: 'not-a-uuid' } } },
    ok: false,
    kinds: ['format'],
    param: 'parent.page_id',
  },
  { name: '$ref into $defs, valid', call: { name: 'with_refs', arguments: { parent: { page_id: '7f1d3c55-5b1e-4c1a-9a53-2c1f0e8b9d11' } } }, ok: true },
  { name: 'tools sharing an $id compile independently (a)', call: { name: 'same_id_a', arguments: { a: 'x' } }, ok: true },
  {
    name: 'tools sharing an $id compile independently (b)',
    call: { name: 'same_id_b', arguments: { b: 'not a number' } },
    ok: false,
    kinds: ['type'],
    param: 'b',
  },
];

for (const c of cases) {
  test(`validateCall: ${c.name}`, () => {
    const r = validateCall(spec, c.call, c.options);
    assert.equal(r.ok, c.ok, JSON.stringify(r.errors));
    assert.equal(r.ok, r.errors.length === 0);
    if (c.kinds) assert.deepEqual([...new Set(r.errors.map((e) => e.kind))], c.kinds, JSON.stringify(r.errors));
    if (c.param)
      assert.ok(
        r.errors.some((e) => e.param === c.param),
        JSON.stringify(r.errors),
      );
    if (c.count !== undefined) assert.equal(r.errors.length, c.count, JSON.stringify(r.errors));
    if (c.message)
      assert.ok(
        r.errors.some((e) => c.message!.test(e.message)),
        JSON.stringify(r.errors),
      );
  });
}

test('compileSchema caches per schema object and never throws', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  assert.equal(compileSchema(schema), compileSchema(schema));
  assert.equal(compileSchema('nonsense').ok, false);
  assert.equal(compileSchema([1, 2]).ok, false);
  assert.equal(compileSchema(true).ok, true);
});

test('validateOutput checks declared outputSchemas only', () => {
  const withOut = tools.find((t) => t.name === 'with_refs')!;
  assert.deepEqual(validateOutput(withOut, { id: 'x' }), { ok: true, errors: [] });
  assert.equal(validateOutput(withOut, { id: 'x', extra: 1 })?.ok, false);
  assert.equal(validateOutput(tools[0]!, { anything: true }), undefined);
});

test('nearestName: separators and case do not matter; far names are not suggested', () => {
  const names = ['slack_list_channels', 'slack_post_message', 'get_file_info'];
  assert.equal(nearestName('listChannels', names), 'slack_list_channels');
  assert.equal(nearestName('slack-post-mesage', names), 'slack_post_message');
  assert.equal(nearestName('GetFileInfo', names), 'get_file_info');
  assert.equal(nearestName('delete_database', names), undefined);
});

test('every tool of every fixture: validating {} never throws and reports typed errors', () => {
  let tools = 0;
  for (const file of readdirSync(specsDir).filter((f) => f.endsWith('.json'))) {
    const loaded = loadSpecText(readFileSync(join(specsDir, file), 'utf8'), file);
    assert.ok(loaded.ok, file);
    for (const tool of loaded.spec.tools) {
      const r = validateCall(loaded.spec, { name: tool.name, arguments: {} });
      tools++;
      for (const e of r.errors)
        assert.ok(['missing-required', 'type', 'other', 'enum', 'unknown-param', 'format'].includes(e.kind), `${file} ${tool.name}: ${e.kind}`);
      // A tool with required parameters must reject {}.
      const required = (tool.inputSchema as { required?: unknown[] } | undefined)?.required;
      if (Array.isArray(required) && required.length) assert.equal(r.ok, false, `${file} ${tool.name} accepted {} despite required ${required.join(',')}`);
    }
  }
  assert.ok(tools > 700, `only ${tools} tools seen`);
});
