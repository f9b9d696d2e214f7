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
  const invalid = repairArguments(events, { project_id: 'prj_1' });
  assert.equal(invalid.check.ok, false);
  assert.match(invalid.check.errors[0]!.message, /'project_id' must be a valid uuid/);
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
