/**
 * The fixture README's table is the acceptance spec for the complexity metrics: every row must
 * come out of `analyzeSpec` exactly as printed (2-decimal columns formatted as the table was).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSpec, formatFixed } from '../../../../src/core/complexity';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { specsDir } from '../../fixturePaths';

interface Row {
  file: string;
  tools: number;
  meanParams: string;
  maxParams: number;
  optRatio: string;
  maxDepth: number;
}

/** Parses the README table by its header, so a reordered or extra column fails loudly instead of shifting. */
function readTable(): Row[] {
  const lines = readFileSync(join(specsDir, 'README.md'), 'utf8').split('\n');
  const cells = (line: string): string[] =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  const headerAt = lines.findIndex((l) => l.startsWith('| file |'));
  assert.ok(headerAt >= 0, 'README has a table starting with "| file |"');
  const header = cells(lines[headerAt] ?? '');
  const col = (name: string): number => {
    const i = header.indexOf(name);
    assert.ok(i >= 0, `README table has a "${name}" column`);
    return i;
  };
  const c = {
    file: col('file'),
    tools: col('tools'),
    mean: col('mean params'),
    max: col('max params'),
    opt: col('opt ratio'),
    depth: col('max depth'),
  };
  const rows: Row[] = [];
  for (const line of lines.slice(headerAt + 2)) {
    if (!line.startsWith('|')) break;
    const r = cells(line);
    const at = (i: number): string => r[i] ?? '';
    rows.push({
      file: at(c.file),
      tools: Number(at(c.tools)),
      meanParams: at(c.mean),
      maxParams: Number(at(c.max)),
      optRatio: at(c.opt),
      maxDepth: Number(at(c.depth)),
    });
  }
  return rows;
}

const rows = readTable();
const specFiles = readdirSync(specsDir)
  .filter((f) => f.endsWith('.json'))
  .sort();

test('the README table covers every spec file and only existing ones', () => {
  assert.equal(rows.length, 32);
  assert.deepEqual(rows.map((r) => r.file).sort(), specFiles);
});

for (const row of rows) {
  test(`${row.file} matches the README's complexity profile`, () => {
    // readFileSync throws ENOENT for a row whose file is missing, failing this case.
    const load = loadSpecText(readFileSync(join(specsDir, row.file), 'utf8'), row.file);
    assert.ok(load.ok, `loads: ${load.ok ? '' : load.problem.message}`);
    assert.deepEqual(load.spec.invalidTools, []);
    const p = analyzeSpec(load.spec);
    assert.deepEqual(
      {
        tools: p.tools,
        meanParams: formatFixed(p.meanParams, 2),
        maxParams: p.maxParams,
        optRatio: formatFixed(p.optionalRatio, 2),
        maxDepth: p.maxDepth,
      },
      { tools: row.tools, meanParams: row.meanParams, maxParams: row.maxParams, optRatio: row.optRatio, maxDepth: row.maxDepth },
    );
  });
}

test('twilio-api-v2010.json (197 tools, one with 205 params) analyses whole (speed is in bench/)', () => {
  const text = readFileSync(join(specsDir, 'twilio-api-v2010.json'), 'utf8');
  const load = loadSpecText(text, 'twilio-api-v2010.json');
  assert.ok(load.ok);
  const p = analyzeSpec(load.spec);
  assert.equal(p.tools, 197);
  assert.equal(p.maxParams, 205);
  assert.equal(p.perTool.length, 197);
});

test('formatFixed rounds exact ties to even like the table, other values to nearest', () => {
  assert.equal(formatFixed(0.625), '0.62'); // everything.json's ratio, 10/16
  assert.equal(formatFixed(2.125), '2.12'); // slack.json's mean, 17/8
  assert.equal(formatFixed(0.375), '0.38');
  assert.equal(formatFixed(0.615), '0.61'); // binary 0.61499…, not a tie
  assert.equal(formatFixed(1 / 3), '0.33');
  assert.equal(formatFixed(0), '0.00');
  assert.equal(formatFixed(8.4264), '8.43');
});
