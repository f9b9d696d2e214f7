/** The one vocabulary (src/core/vocabulary.ts): one spelling, the judge ↔ report mapping, import-free. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { judgmentScores, type Judgment } from '../../../src/core/harness/format';
import { readJudgment } from '../../../src/core/report/judgments';
import {
  ARGUMENT_REPORT_KEYS,
  ARGUMENT_SUBDIMENSIONS,
  ARGUMENT_SUBS,
  COH_ASPECTS,
  REPORT_ASPECT_ORDER,
  subdimensionLabel,
  TC_SUBDIMENSIONS,
} from '../../../src/core/vocabulary';
import { repoRoot } from '../fixturePaths';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const judgment = (subdimensions: Record<string, unknown>, extra: Record<string, unknown> = {}): Judgment => ({
  tc: 0.5,
  coh: null,
  dimensions: {},
  subdimensions,
  notes: [],
  ...extra,
});

test('the vocabulary imports nothing, so the report page bundle can use it', () => {
  const text = readFileSync(join(repoRoot, 'src', 'core', 'vocabulary.ts'), 'utf8');
  assert.doesNotMatch(text, /^\s*(import|export\s+[^=]*\sfrom)\s/m);
  assert.doesNotMatch(text, /require\s*\(/);
  assert.match(readFileSync(join(repoRoot, 'media', 'report', 'report.ts'), 'utf8'), /from '\.\.\/\.\.\/src\/core\/vocabulary'/);
});

test('judge keys map to the report keys of the published JSON contract, in one order', () => {
  assert.deepEqual(
    TC_SUBDIMENSIONS.arguments,
    ARGUMENT_SUBS.map((s) => `arguments.${s}`),
  );
  assert.deepEqual([...ARGUMENT_SUBDIMENSIONS], ['completeness', 'name_accuracy', 'value_accuracy', 'type_compliance', 'format_compliance', 'relevancy']);
  assert.deepEqual(
    [...ARGUMENT_SUBDIMENSIONS],
    ARGUMENT_SUBS.map((s) => ARGUMENT_REPORT_KEYS[s]),
  );
  const schema = JSON.parse(readFileSync(join(repoRoot, 'schemas', 'report.schema.json'), 'utf8')) as {
    definitions: Record<string, { properties: Record<string, { properties?: Record<string, unknown> }> }>;
  };
  assert.deepEqual(Object.keys(schema.definitions.ArgumentFailures?.properties.means?.properties ?? {}), [...ARGUMENT_SUBDIMENSIONS]);
  assert.deepEqual(Object.keys(schema.definitions.ServerReport?.properties.coherenceAspects?.properties ?? {}), [...REPORT_ASPECT_ORDER]);
  assert.deepEqual([...REPORT_ASPECT_ORDER].sort(), [...COH_ASPECTS].sort(), 'the report orders the same five aspects');
});

test('every spelling of a sub-dimension in a stored judgment reads the same', () => {
  for (const subdimensions of [
    { 'arguments.name': 0.25 },
    { 'arguments.name_accuracy': 0.25 },
    { arguments: { nameAccuracy: 0.25 } },
    { 'args.Name-Accuracy': 0.25 },
  ]) {
    assert.equal(readJudgment(judgment(subdimensions)).args.name_accuracy, 0.25, JSON.stringify(subdimensions));
  }
  assert.equal(readJudgment(judgment({ 'arguments.relevance': 0.5 })).args.relevancy, 0.5);
  assert.equal(readJudgment(judgment({}, { dimensions: { tool_usage: 0.75 } })).dims.usage, 0.75);
  assert.equal(readJudgment(judgment({ 'coherence.logicalFlow': 1 })).aspects.logical_flow, 3);
});

test('labels for messages come from the vocabulary', () => {
  assert.equal(subdimensionLabel('arguments.name'), 'name accuracy');
  assert.equal(subdimensionLabel('arguments.relevancy'), 'relevancy');
  assert.equal(subdimensionLabel('coherence.topic_relevance'), 'topic relevance');
});

test('judgmentScores reads the headline numbers of a loose judgment without casts', () => {
  assert.deepEqual(judgmentScores(judgment({}, { coh: 0.9, exact: 0.75 })), { tc: 0.5, coh: 0.9, exact: 0.75 });
  assert.deepEqual(judgmentScores(judgment({}, { tc: null, exact: 'high' })), { tc: null, coh: null, exact: null });
});

test('one spelling: no file but the vocabulary spells the report keys, the dimension list or the alias tables', () => {
  const spellings =
    /\b(?:name|value)_accuracy\b|\b(?:type|format)_compliance\b|'usage',\s*'selection'|\btool(?:usage|selection|ordering|arguments)\b|\blogicalflow\b/;
  const offenders: string[] = [];
  for (const file of [...tsFiles(join(repoRoot, 'src')), ...tsFiles(join(repoRoot, 'media'))]) {
    const rel = relative(repoRoot, file).split('\\').join('/');
    if (rel === 'src/core/vocabulary.ts') continue;
    // Prose may name the keys; code may not.
    const code = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\*|\/\*\*|\/\/)/.test(line))
      .join('\n');
    const m = spellings.exec(code);
    if (m) offenders.push(`${rel}: ${m[0]}`);
  }
  assert.deepEqual(offenders, []);
});
