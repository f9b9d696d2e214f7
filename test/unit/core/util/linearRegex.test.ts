/**
 * Patterns from specs, replies and records are matched in linear time (`util/linearRegex.ts`):
 * ECMAScript meaning kept where RE2's syntax differs, refusals with a reason instead of a hang,
 * and the same engine inside ajv (`validateCall`), the offline sampler and `inspect`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileSchema, validateToolArguments } from '../../../../src/core/checks/validateCall';
import { analyzeTool } from '../../../../src/core/complexity/analyze';
import { sampleFromPattern } from '../../../../src/core/pipeline/offline/regexSample';
import { rngFor } from '../../../../src/core/pipeline/offline/rng';
import type { Tool } from '../../../../src/core/spec/model';
import { compileLinear } from '../../../../src/core/util/linearRegex';

const HOSTILE = `${'a'.repeat(40)}!`;

test('a catastrophic pattern is matched in linear time, with the same answer as V8 on short inputs', () => {
  const c = compileLinear('^(a+)+$');
  assert.ok(c.ok);
  assert.equal(c.regex.test(HOSTILE), false); // V8 would need ~2^40 steps here
  assert.equal(c.regex.test('a'.repeat(100_000)), true);
  assert.equal(c.regex.test('aaa!'), /^(a+)+$/u.test('aaa!'));
});

test('ECMAScript syntax RE2 spells differently means what it means in JavaScript', () => {
  const cases: [string, string][] = [
    [String.raw`^[\u0020-\u007e]+$`, 'plain ascii'],
    [String.raw`^[\u0020-\u007e]+$`, 'café'],
    [String.raw`^\uD83D\uDE00$`, '😀'],
    [String.raw`^\u{1F600}$`, '😀'],
    ['^a.c$', 'a\nc'],
    ['^a.c$', 'a\u2028c'],
    ['^a.c$', 'abc'],
    [String.raw`^\s$`, '\u00a0'],
    [String.raw`^\S$`, '\u3000'],
    ['^[^]$', '\n'],
    ['[]', 'x'],
    [String.raw`^\cJ$`, '\n'],
    [String.raw`^[\w.-]+@[\w-]+\.[a-z]{2,}$`, 'dev.ops@example.io'],
    [String.raw`^\p{L}+$`, 'Ünïcödé'],
    [String.raw`^[\[a]+$`, '[a['],
    ['^(?<year>\\d{4})-\\d{2}$', '2026-03'],
  ];
  for (const [pattern, s] of cases) {
    const c = compileLinear(pattern);
    assert.ok(c.ok, `${pattern}: ${c.ok ? '' : c.reason}`);
    assert.equal(c.regex.test(s), new RegExp(pattern, 'u').test(s), `${pattern} on ${JSON.stringify(s)}`);
  }
});

test('what the linear-time engine cannot evaluate is refused with its reason, never thrown', () => {
  const refused: [string, string][] = [
    [String.raw`^(a)\1$`, 'backreference'],
    [String.raw`^(?<x>a)\k<x>$`, 'backreference'],
    ['^(?=a)a$', 'lookaround'],
    ['^(?!b)a$', 'lookaround'],
    ['(?<=a)b', 'lookaround'],
    ['(?<!a)b', 'lookaround'],
    ['^x{1001}$', 'unsupported'],
    ['^[a-', 'invalid'],
    ['(', 'invalid'],
  ];
  for (const [pattern, kind] of refused) {
    const c = compileLinear(pattern);
    assert.equal(c.ok, false, pattern);
    if (!c.ok) assert.equal(c.kind, kind, `${pattern}: ${c.reason}`);
  }
});

const tool = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Tool => ({
  name: 'find_code',
  description: 'Finds a code.',
  inputSchema: { type: 'object', properties, ...extra },
});

test('validation: a pattern holds or fails as before, a hostile value is answered at once', () => {
  const t = tool({ code: { type: 'string', description: 'A code.', pattern: '^(a+)+$' } });
  assert.equal(validateToolArguments(t, { code: 'aaaa' }).ok, true);
  const bad = validateToolArguments(t, { code: HOSTILE });
  assert.equal(bad.ok, false);
  assert.match(bad.errors[0]?.message ?? '', /'code' must match pattern/);
});

test('validation: patternProperties keys are matched by the same engine, distinct patterns kept apart', () => {
  const t = tool({}, { patternProperties: { '^(x+)+$': { type: 'string' }, '^(y+)+$': { type: 'number' } }, additionalProperties: false });
  assert.equal(validateToolArguments(t, { xxx: 's', yy: 1 }).ok, true);
  assert.equal(validateToolArguments(t, { yy: 's' }).ok, false, 'the y pattern has its own subschema');
  assert.equal(validateToolArguments(t, { [`${'x'.repeat(40)}!`]: 's' }).ok, false);
});

test('validation: a refused pattern is not checked, and the compiled schema says which', () => {
  const t = tool({ word: { type: 'string', description: 'A doubled word.', pattern: String.raw`^(\w+) \1$` } });
  const compiled = compileSchema(t.inputSchema);
  assert.ok(compiled.ok);
  assert.equal(compiled.unchecked.length, 1);
  assert.match(compiled.unchecked[0] ?? '', /pattern "\^\(\\\\w\+\) \\\\1\$" is not checked: it uses a backreference/);
  assert.equal(validateToolArguments(t, { word: 'not doubled' }).ok, true);
  assert.equal(validateToolArguments(t, { word: 7 }).ok, false, 'the other keywords still hold');
});

test('inspect: pattern-unsupported on the parameter, once per pattern; supported patterns give none', () => {
  const t = tool(
    {
      a: { type: 'string', description: 'Letters.', pattern: '^(?=x)x+$' },
      b: { type: 'object', description: 'Nested.', properties: { c: { type: 'string', description: 'Same.', pattern: '^(?=x)x+$' } } },
      d: { type: 'string', description: 'Fine.', pattern: '^(a+)+$' },
    },
    { $defs: { E: { type: 'string', pattern: String.raw`(a)\1` } } },
  );
  const found = analyzeTool(t).findings.filter((f) => f.code === 'pattern-unsupported');
  assert.deepEqual(
    found.map((f) => f.param),
    ['a', undefined],
  );
  assert.match(found[0]?.summary ?? '', /Parameter "a" has the pattern "\^\(\?=x\)x\+\$", which cannot be evaluated in linear time: it uses a lookahead/);
  assert.match(found[1]?.summary ?? '', /The inputSchema has the pattern .*backreference/);
});

test('the pattern sampler stays bounded on repetitions of empty groups and on deep nesting', () => {
  const rng = rngFor('linear-regex-test');
  assert.equal(sampleFromPattern('^((){1000}){1000}((){1000}){1000}$', rng), undefined);
  assert.equal(typeof sampleFromPattern('^[A-Z]{3}-\\d{4}$', rng), 'string');
  const deep = 20_000;
  assert.equal(sampleFromPattern(`${'('.repeat(deep)}a${')'.repeat(deep)}`, rng), undefined, 'nesting past the stack is a miss, not a crash');
});
