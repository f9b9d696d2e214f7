/** One doc per schema field: a zod field is documented by its `.describe()` (which also feeds schemas/), never by a JSDoc as well. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from './fixturePaths';

/** Fields with a JSDoc block right above them and a `.describe()` of their own (on the line or on a chained line below). */
export function doublyDocumented(text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\/\*\*/.test(lines[i] ?? '')) continue;
    let j = i;
    while (j < lines.length && !(lines[j] ?? '').includes('*/')) j++;
    const prop = lines[j + 1] ?? '';
    const m = /^(\s*)([\w$]+)\??: /.exec(prop);
    if (!m) continue;
    const indent = (m[1] ?? '').length;
    let own = /\.describe\(/.test(prop) && /\),?\s*$/.test(prop);
    // A chained field: `.describe(` on a following line one level deeper, before the next field.
    for (let k = j + 2; !own && k < lines.length; k++) {
      const line = lines[k] ?? '';
      const depth = line.length - line.trimStart().length;
      if (line.trim() && depth <= indent) break;
      if (depth === indent + 2 && line.trimStart().startsWith('.describe(')) own = true;
    }
    if (own) found.push(`${j + 2}: ${m[2]}`);
  }
  return found;
}

test('the double-doc finder sees one-line and chained fields', () => {
  const text = [
    'const A = z.object({',
    '  /** Name. */',
    "  name: z.string().describe('Name.'),",
    '  /** Kept: no describe. */',
    '  plain: z.string(),',
    '  /** Chained. */',
    '  list: z',
    '    .array(z.string())',
    "    .describe('Chained.'),",
    "  bare: z.string().describe('Only describe.'),",
    '});',
  ].join('\n');
  assert.deepEqual(doublyDocumented(text), ['3: name', '7: list']);
});

test('no schema field is documented twice', () => {
  const files = ['src/core/harness/format.ts', 'src/core/report/schema.ts', 'src/core/pipeline/schemas.ts', 'src/core/judge/schemas.ts'];
  const found = files.flatMap((f) => doublyDocumented(readFileSync(join(repoRoot, f), 'utf8')).map((d) => `${f}:${d}`));
  assert.deepEqual(found, []);
});
