/**
 * The shared structured-output rules (`schemaRules.ts`) and every request schema a generation run
 * sends: a run with the schema-only model through the real `openai` client (which sees the schema
 * as built) on several fixture specs, each request's schema checked against the rules and sent
 * with `strict: true`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OpenAICompatibleProvider } from '../../../../src/core/llm';
import { schemaRuleViolations } from '../../../../src/core/llm/schemaRules';
import { argumentSchema, valueSchema } from '../../../../src/core/pipeline/llm/argumentSchema';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { startFakeOpenAI } from '../../../fakes/fakeOpenAI';
import type { FakeLlmServer } from '../../../fakes/fakeLlmServer';
import { schemaOnlyModel } from '../../../fakes/schemaOnly';
import { specsDir } from '../../fixturePaths';

const closed = (properties: Record<string, unknown>): Record<string, unknown> => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

describe('schemaRuleViolations', () => {
  it('accepts a closed object with enums, bounds, arrays, nullable values and $defs references', () => {
    const schema = {
      ...closed({
        name: { type: 'string', enum: ['a', 'b'] },
        n: { type: 'integer', minimum: 0, maximum: 3 },
        list: { type: 'array', minItems: 2, maxItems: 2, items: { $ref: '#/$defs/item' } },
        maybe: { anyOf: [{ type: 'null' }, { type: 'string' }] },
      }),
      $defs: { item: closed({ i: { type: 'integer', enum: [0, 1] } }) },
    };
    assert.deepEqual(schemaRuleViolations(schema), []);
  });

  it('names each break of the rules with where it is', () => {
    const v = schemaRuleViolations({
      type: 'object',
      properties: {
        open: { type: 'object', properties: { a: { type: 'string' } } },
        optional: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'], additionalProperties: false },
        pattern: { type: 'string', pattern: '^x' },
        union: { type: ['string', 'null'] },
        ref: { $ref: '#/definitions/x' },
        mixed: { type: 'string', enum: ['a', 1] },
      },
      required: ['open', 'optional', 'pattern', 'union', 'ref', 'mixed'],
      additionalProperties: false,
    });
    const text = v.join('\n');
    assert.match(text, /\/properties\/open: an object must set additionalProperties: false/);
    assert.match(text, /\/properties\/optional: property "b" must be required/);
    assert.match(text, /\/properties\/pattern: keyword "pattern" is not accepted by both providers/);
    assert.match(text, /\/properties\/union: type must be one of/);
    assert.match(text, /\/properties\/ref: \$ref must point into #\/\$defs/);
    assert.match(text, /\/properties\/mixed: enum values must all be strings/);
    assert.deepEqual(schemaRuleViolations({ anyOf: [{ type: 'string' }] }).slice(0, 1), ['/: the root must be an object schema (type "object")']);
  });

  it("turns a tool's parameters into a closed schema; optional ones are nullable (a null is dropped on the way back), a free-form object is a list of entries, a union is told apart by type", () => {
    const a = argumentSchema({
      type: 'object',
      properties: {
        path: { type: 'string', pattern: '^/' },
        depth: { type: 'integer', minimum: 1 },
        meta: { type: 'object' },
        result: { anyOf: [{ type: 'array', items: { type: 'object' } }, { type: 'string' }] },
      },
      required: ['path'],
    });
    assert.deepEqual(schemaRuleViolations(a.schema), []);
    assert.deepEqual(a.decode({ path: '/tmp', depth: null, meta: [{ key: 'k', value: '1' }], result: [[{ key: 'a', value: '"b"' }]] }), {
      path: '/tmp',
      meta: { k: 1 },
      result: [{ a: 'b' }],
    });
  });
});

describe('argument slots say in words what the subset has no keyword for', () => {
  it('pattern, format, lengths, exclusive bounds, multipleOf, the description, examples and default go into the description; the subset keywords stay keywords', () => {
    const a = argumentSchema({
      type: 'object',
      properties: {
        period: { type: 'string', pattern: '^\\d+[hdw]$', description: 'How far back to look', examples: ['24h'] },
        id: { type: 'string', format: 'uuid', minLength: 36, maxLength: 36 },
        ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1, multipleOf: 0.5, default: 0.5 },
        old: { type: 'integer', minimum: 0, exclusiveMinimum: true },
        tags: { type: 'array', items: { type: 'string', format: 'email' }, uniqueItems: true, maxItems: 3 },
        kind: { enum: ['a', 'b'], description: 'The kind.' },
        either: { type: ['string', 'integer'], pattern: '^x', description: 'One or the other' },
      },
      required: ['id'],
    });
    assert.deepEqual(schemaRuleViolations(a.schema), []);
    const props = a.schema.properties as Record<string, Record<string, unknown>>;
    const inner = (name: string): Record<string, unknown> => {
      const p = props[name]!;
      return Array.isArray(p.anyOf) ? (p.anyOf as Record<string, unknown>[])[1]! : p;
    };
    assert.equal(inner('period').description, 'How far back to look. Must match the regular expression ^\\d+[hdw]$. Example: 24h.');
    assert.equal(inner('id').description, 'Format: uuid. 36 to 36 characters.');
    assert.deepEqual(inner('ratio'), { type: 'number', maximum: 1, description: 'Greater than 0. A multiple of 0.5. Default: 0.5.' });
    assert.equal(inner('old').description, 'Greater than 0.');
    assert.deepEqual(inner('tags'), { type: 'array', items: { type: 'string', description: 'Format: email.' }, maxItems: 3, description: 'No item twice.' });
    assert.deepEqual(inner('kind'), { type: 'string', enum: ['a', 'b'], description: 'The kind.' });
    // A type list: the parameter's words once, on the union; the pattern on its string branch only.
    assert.deepEqual(inner('either'), {
      anyOf: [{ type: 'string', description: 'Must match the regular expression ^x.' }, { type: 'integer' }],
      description: 'One or the other.',
    });
  });

  it('mock output schemas (valueSchema) are left without them', () => {
    const v = valueSchema({ type: 'object', properties: { id: { type: 'string', format: 'uuid', description: 'The id' } }, required: ['id'] });
    assert.deepEqual(v.schema, { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false });
  });
});

describe('every request schema of a run keeps the rules (OpenAI wire, strict mode)', () => {
  let fake: FakeLlmServer;
  let root: string;
  before(async () => {
    fake = await startFakeOpenAI();
    root = await mkdtemp(join(tmpdir(), 'agent-seer-schema-rules-'));
  });
  after(async () => {
    await fake.close();
    await rm(root, { recursive: true, force: true });
  });

  for (const name of ['filesystem.json', 'illustrator-ie3jp-1.2.12.json', 'redis-mcp-0.5.0.json', 'twilio-api-v2010.json']) {
    it(name, async () => {
      const file = join(specsDir, name);
      const loaded = loadSpecText(await readFile(file, 'utf8'), file);
      assert.ok(loaded.ok);
      fake.reset();
      fake.respondWith(schemaOnlyModel);
      const chat = new OpenAICompatibleProvider({ model: 'm', baseUrl: fake.url });
      await runPipeline({ spec: loaded.spec, provider: { chat, limits: { concurrency: 8 } }, outDir: join(root, name), simple: 2, complex: 2 });
      const stages = new Set<string>();
      assert.ok(fake.requests.length > 0);
      for (const req of fake.requests) {
        const props = Object.keys((req.jsonSchema as { properties?: object }).properties ?? {});
        stages.add(
          props.includes('scenario_1')
            ? 'scenarios'
            : props.includes('text_0')
              ? 'restate'
              : props.includes('outputs')
                ? 'mock'
                : props.includes('turns')
                  ? 'turns'
                  : 'interpret',
        );
        assert.deepEqual(schemaRuleViolations(req.jsonSchema), [], `${name}: request ${req.index} (${props.join(', ')})`);
        assert.equal((req.body as { response_format: { json_schema: { strict: boolean } } }).response_format.json_schema.strict, true);
      }
      assert.ok(stages.has('interpret') && stages.has('scenarios') && stages.has('mock'), [...stages].join(', '));
      // Requests restated around their value slots (issue 21): the minimal model writes "x" for the
      // request and every string, so only a request whose calls take a number (its minimum) needs one.
      if (name.startsWith('illustrator') || name.startsWith('redis')) assert.ok(stages.has('restate'), [...stages].join(', '));
    });
  }
});
