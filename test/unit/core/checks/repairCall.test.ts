/** Repair at the argument: renames, extras, lossless slips and bad optional values fixed and named; required problems left. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { repairArguments } from '../../../../src/core/checks/repairCall';
import type { Tool } from '../../../../src/core/spec/model';

const events: Tool = {
  name: 'list_events',
  inputSchema: {
    type: 'object',
    properties: {
      project_id: { type: 'string', format: 'uuid' },
      period: { type: 'string', pattern: '^\\d+[hdw]$' },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      verbose: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      filter: { type: 'object', properties: { level: { type: 'string', enum: ['info', 'error'] } }, additionalProperties: false },
      sort: { type: 'string', enum: ['asc', 'desc'] },
      name: { type: 'string' },
    },
    required: ['project_id'],
  },
};
const ID = '0b6c1f52-7a3e-4c1d-9a55-2f3e8c0d1a77';

const kinds = (r: ReturnType<typeof repairArguments>): string[] => r.repairs.map((x) => `${x.kind}:${x.param}`);

test('valid arguments pass untouched, with no repair', () => {
  const args = { project_id: ID, period: '24h', limit: 5 };
  const r = repairArguments(events, args);
  assert.ok(r.check.ok);
  assert.deepEqual(r.repairs, []);
  assert.deepEqual(r.arguments, args);
});

test('an optional argument that fails its pattern, format, enum or bounds is dropped and counted; the rest stays', () => {
  const r = repairArguments(events, { project_id: ID, period: 'last week', sort: 'newest', limit: 500, name: 'x' });
  assert.ok(r.check.ok, JSON.stringify(r.check.errors));
  assert.deepEqual(r.arguments, { project_id: ID, name: 'x' });
  assert.deepEqual(kinds(r).sort(), ['optional-argument-dropped:limit', 'optional-argument-dropped:period', 'optional-argument-dropped:sort']);
  assert.match(r.repairs.find((x) => x.param === 'period')!.message, /pattern/);
});

test('lossless slips are coerced: number and boolean strings, one value for a list, a JSON string for an object, a number for a string', () => {
  const r = repairArguments(events, { project_id: ID, limit: '5', verbose: 'true', tags: 'urgent', filter: '{"level":"error"}', name: 42 });
  assert.ok(r.check.ok, JSON.stringify(r.check.errors));
  assert.deepEqual(r.arguments, { project_id: ID, limit: 5, verbose: true, tags: ['urgent'], filter: { level: 'error' }, name: '42' });
  assert.deepEqual(
    kinds(r).sort(),
    ['filter', 'limit', 'name', 'tags', 'verbose'].map((p) => `argument-coerced:${p}`),
  );
});

test('a coercion that does not make the value valid is not kept: an optional value is then dropped', () => {
  // "5.5" reads as a number but not an integer; "yes" is no boolean.
  const r = repairArguments(events, { project_id: ID, limit: '5.5', verbose: 'yes' });
  assert.ok(r.check.ok);
  assert.deepEqual(r.arguments, { project_id: ID });
  assert.deepEqual(kinds(r).sort(), ['optional-argument-dropped:limit', 'optional-argument-dropped:verbose']);
});

test('a renamed parameter with one close declared match is renamed (camelCase, case, plural); an unknown one is dropped', () => {
  const r = repairArguments(events, { projectId: ID, Limit: 3, tag: ['a'], dry_run: true });
  assert.ok(r.check.ok, JSON.stringify(r.check.errors));
  assert.deepEqual(r.arguments, { project_id: ID, limit: 3, tags: ['a'] });
  assert.deepEqual(kinds(r).sort(), ['argument-renamed:limit', 'argument-renamed:project_id', 'argument-renamed:tags', 'extra-argument-dropped:dry_run']);
});

test('a rename onto a parameter already given is not made: the extra is dropped and the given value kept', () => {
  const r = repairArguments(events, { project_id: ID, projectId: 'other' });
  assert.ok(r.check.ok);
  assert.deepEqual(r.arguments, { project_id: ID });
  assert.deepEqual(kinds(r), ['extra-argument-dropped:projectId']);
});

test('two declared names equally close: no guess, the extra is dropped', () => {
  const tool: Tool = { name: 't', inputSchema: { type: 'object', properties: { user_id: { type: 'string' }, userId: { type: 'string' } } } };
  const r = repairArguments(tool, { USERID: 'u1' });
  assert.deepEqual(r.arguments, {});
  assert.deepEqual(kinds(r), ['extra-argument-dropped:USERID']);
});

test('a schema that allows more properties keeps an undeclared one', () => {
  const tool: Tool = { name: 't', inputSchema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true } };
  const r = repairArguments(tool, { a: 'x', b: 1 });
  assert.ok(r.check.ok);
  assert.deepEqual(r.arguments, { a: 'x', b: 1 });
  assert.deepEqual(r.repairs, []);
});

test('a missing or invalid required value is not repairable: the errors stay, optional repairs still made', () => {
  const missing = repairArguments(events, { period: 'soon' });
  assert.equal(missing.check.ok, false);
  assert.deepEqual(
    missing.check.errors.map((e) => e.kind),
    ['missing-required'],
  );
  assert.deepEqual(kinds(missing), ['optional-argument-dropped:period']);
  const coded: Tool = { name: 'c', inputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } }, required: ['code'] } };
  const invalid = repairArguments(coded, { code: 'abcd' });
  assert.equal(invalid.check.ok, false);
  assert.match(invalid.check.errors[0]!.message, /'code' must match pattern/);
  // A required value coerced losslessly is fine.
  const tool: Tool = { name: 't', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } };
  const coerced = repairArguments(tool, { n: '7' });
  assert.ok(coerced.check.ok);
  assert.deepEqual(coerced.arguments, { n: 7 });
});

test('arguments sent as a JSON string are parsed; a nested failure in an optional object drops that object', () => {
  const r = repairArguments(events, JSON.stringify({ project_id: ID, filter: { level: 'debug' } }));
  assert.ok(r.check.ok);
  assert.deepEqual(r.arguments, { project_id: ID });
  assert.deepEqual(kinds(r), ['argument-coerced:', 'optional-argument-dropped:filter']);
});

test('a parameter named __proto__ is an own argument throughout', () => {
  const tool: Tool = { name: 't', inputSchema: { type: 'object', properties: { ['__proto__']: { type: 'integer' } }, required: ['__proto__'] } };
  const args = JSON.parse('{"__proto__": "3"}') as Record<string, unknown>;
  const r = repairArguments(tool, args);
  assert.ok(r.check.ok, JSON.stringify(r.check.errors));
  assert.ok(Object.hasOwn(r.arguments, '__proto__'));
  assert.equal(Object.getOwnPropertyDescriptor(r.arguments, '__proto__')!.value, 3);
});

test('a readable name for a required UUID becomes the UUID named by it: the same name the same UUID, a UUID or an optional value untouched', () => {
  const r = repairArguments(events, { project_id: 'q3-roadmap' });
  assert.ok(r.check.ok, JSON.stringify(r.check.errors));
  const minted = r.arguments.project_id as string;
  assert.match(minted, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a version-5 UUID');
  assert.deepEqual(kinds(r), ['identifier-minted:project_id']);
  assert.match(r.repairs[0]!.message, /"q3-roadmap" is not a UUID/);
  // Deterministic, so a value two calls share stays one value; another name, another UUID.
  assert.equal(repairArguments(events, { project_id: 'q3-roadmap' }).arguments.project_id, minted);
  assert.notEqual(repairArguments(events, { project_id: 'q4-roadmap' }).arguments.project_id, minted);
  // A real UUID is left as it is; an empty string is not a name.
  assert.deepEqual(repairArguments(events, { project_id: ID }).repairs, []);
  assert.equal(repairArguments(events, { project_id: '  ' }).check.ok, false);
  // An optional uuid that fails is dropped, not minted (nothing to keep it for).
  const optional: Tool = { name: 'o', inputSchema: { type: 'object', properties: { page_id: { type: 'string', format: 'uuid' } } } };
  assert.deepEqual(kinds(repairArguments(optional, { page_id: 'home' })), ['optional-argument-dropped:page_id']);
});

test("names inside a required object or union branch are minted too (notion's move-page parent), and only where a UUID belongs", () => {
  const move: Tool = {
    name: 'move_page',
    inputSchema: {
      type: 'object',
      properties: {
        page_id: { type: 'string', format: 'uuid' },
        parent: {
          anyOf: [
            {
              oneOf: [
                { type: 'object', properties: { type: { const: 'page_id' }, page_id: { type: 'string', format: 'uuid' } }, required: ['type', 'page_id'] },
                {
                  type: 'object',
                  properties: { type: { const: 'database_id' }, database_id: { type: 'string', format: 'uuid' } },
                  required: ['type', 'database_id'],
                },
              ],
            },
            { type: 'string' },
          ],
        },
        title: { type: 'string', pattern: '^[A-Z]' },
      },
      required: ['page_id', 'parent', 'title'],
    },
  };
  const r = repairArguments(move, { page_id: 'roadmap', parent: { type: 'page_id', page_id: 'q3-planning' }, title: 'Roadmap' });
  assert.ok(r.check.ok, JSON.stringify(r.check.errors));
  assert.deepEqual(kinds(r).sort(), ['identifier-minted:page_id', 'identifier-minted:parent']);
  const parent = r.arguments.parent as { type: string; page_id: string };
  assert.equal(parent.type, 'page_id', 'the discriminator stays: only the name became a UUID');
  assert.equal(
    parent.page_id,
    repairArguments(move, { page_id: 'q3-planning', parent: 'x', title: 'T' }).arguments.page_id,
    'one name, one UUID, wherever it is',
  );
  // A required value whose failure a UUID does not cure is left alone, with its error.
  const bad = repairArguments(move, { page_id: 'roadmap', parent: 'p', title: 'lowercase' });
  assert.equal(bad.check.ok, false);
  assert.equal(bad.arguments.title, 'lowercase');
});
