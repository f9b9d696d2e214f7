/** The small shared helpers of src/core/util, and that each has one home. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { byCodeUnit } from '../../../../src/core/util/byCodeUnit';
import { isRecord } from '../../../../src/core/util/isRecord';
import { mean } from '../../../../src/core/util/mean';
import { round4 } from '../../../../src/core/util/round4';
import { safeParseKeepingKeys, setOwn } from '../../../../src/core/util/ownKeys';
import { z } from 'zod';
import { repoRoot } from '../../fixturePaths';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('isRecord: plain objects only', () => {
  assert.equal(isRecord({}), true);
  assert.equal(isRecord(Object.create(null)), true);
  for (const v of [null, undefined, [], [1], 'x', 1, true]) assert.equal(isRecord(v), false, JSON.stringify(v));
});

test('mean is null for no values, the plain mean otherwise', () => {
  assert.equal(mean([]), null);
  assert.equal(mean([0.5]), 0.5);
  assert.equal(mean([0, 1, 0.5]), 0.5);
});

test('byCodeUnit orders by code unit, not by locale', () => {
  assert.deepEqual(['b', 'B', 'a', 'é', 'Z'].sort(byCodeUnit), ['B', 'Z', 'a', 'b', 'é']);
  assert.equal(byCodeUnit('x', 'x'), 0);
});

test('round4 keeps four decimals', () => {
  assert.equal(round4(0.123456), 0.1235);
  assert.equal(round4(2 / 3), 0.6667);
});

test('the plain-object guard, the mean and the code-unit order are defined once, in src/core/util', () => {
  const copies: string[] = [];
  for (const file of [...tsFiles(join(repoRoot, 'src')), ...tsFiles(join(repoRoot, 'media'))]) {
    const rel = relative(repoRoot, file).split('\\').join('/');
    if (rel.startsWith('src/core/util/')) continue;
    const text = readFileSync(file, 'utf8');
    if (/\(\s*\w+\s*:\s*unknown\s*\)\s*:\s*\w+\s+is\s+Record<string,\s*unknown>/.test(text)) copies.push(`${rel}: a plain-object guard`);
    if (/xs\.reduce\(\(a, b\) => a \+ b, 0\) \/ xs\.length|function mean\b|const mean\s*=/.test(text)) copies.push(`${rel}: a mean`);
    if (/a < b \? -1 : a > b \? 1 : 0/.test(text)) copies.push(`${rel}: a code-unit comparison`);
  }
  assert.deepEqual(copies, []);
});

test('ownKeys: setOwn keeps `__proto__` as a key; keepOwnKeys puts back what zod drops', () => {
  const o: Record<string, unknown> = {};
  setOwn(o, '__proto__', { polluted: true });
  assert.ok(Object.hasOwn(o, '__proto__'));
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.equal((o as { polluted?: unknown }).polluted, undefined);

  const raw = JSON.parse('{"a":{"__proto__":1,"b":[{"__proto__":{"x":2}}]},"keep":true}') as unknown;
  const schema = z.object({ a: z.looseObject({ b: z.array(z.record(z.string(), z.unknown())) }), keep: z.boolean() });
  // What this guards against: zod drops an own `__proto__` from what it parses.
  const plain = schema.parse(raw);
  assert.ok(!Object.hasOwn(plain.a, '__proto__') && !Object.hasOwn(plain.a.b[0]!, '__proto__'));
  const kept = safeParseKeepingKeys(schema, raw);
  assert.ok(kept.success);
  assert.equal(JSON.stringify(kept.data), '{"a":{"b":[{"__proto__":{"x":2}}],"__proto__":1},"keep":true}');
  assert.equal(Object.getPrototypeOf(kept.data.a), Object.prototype);
});
