/** A record's honest verdict: exact checks fail it, a low score fails it, an edited record makes its judgment stale. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { judgeRecord } from '../../../../src/core/judge';
import { countVerdicts, describeCounts, recordVerdict } from '../../../../src/core/judge/verdict';
import { generateOffline } from '../../../../src/core/pipeline/offline';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { PASS_THRESHOLD } from '../../../../src/core/workspace/defaults';
import { specsDir } from '../../fixturePaths';
import { fileSpec, makeRecord } from '../../judgeFixtures';

test('a wrong-typed argument fails the record although its exact score (0.95) is over the pass threshold', async () => {
  const spec = fileSpec();
  const good = makeRecord({
    id: 'r1',
    prompt: 'List /srv/data, at most five.',
    calls: [{ name: 'list_files', arguments: { path: '/srv/data', limit: 5 } }],
    outputs: [{ files: [] }],
  });
  assert.equal(recordVerdict(good, { spec }).state, 'not-judged');
  const judgedGood = { ...good, judgments: { offline: await judgeRecord(good, spec) } };
  assert.equal(recordVerdict(judgedGood, { spec }).state, 'pass');

  // The record as a hand edit leaves it: checks still say valid (they were computed before the edit).
  const bad = { ...good, expected_tools: [{ ...good.expected_tools[0]!, arguments: { path: '/srv/data', limit: 'five' } }] };
  const judgedBad = { ...bad, judgments: { offline: await judgeRecord(bad, spec) } };
  assert.ok((judgedBad.judgments.offline.exact ?? 0) >= PASS_THRESHOLD, `exact ${judgedBad.judgments.offline.exact}`);
  const withSpec = recordVerdict(judgedBad, { spec });
  assert.equal(withSpec.state, 'fail');
  assert.match(withSpec.failures.join('\n'), /call 0 'list_files': .*limit.*integer/);
  // Without the spec the stored checks are stale, but the judgment's exact finding still fails it.
  const withoutSpec = recordVerdict(judgedBad);
  assert.equal(withoutSpec.state, 'fail');
  assert.match(withoutSpec.failures.join('\n'), /type compliance 0\.50: .*limit.*\(offline\)/);
  assert.equal(withoutSpec.staleJudges, null, 'staleness cannot be told without the spec');
});

test('a score under the threshold fails; a record edited after judging is stale until judged again', async () => {
  const spec = fileSpec();
  const record = makeRecord({
    id: 'r2',
    prompt: 'List /srv/data.',
    calls: [{ name: 'list_files', arguments: { path: '/srv/data' } }],
    outputs: [{ files: [] }],
  });
  const judgment = await judgeRecord(record, spec);
  const low = { ...record, judgments: { offline: { ...judgment, exact: 0.5 } } };
  const v = recordVerdict(low, { spec });
  assert.equal(v.state, 'fail');
  assert.match(v.failures[0] ?? '', /exact 0\.50 is under the pass threshold 0\.9 \(offline\)/);

  const judged = { ...record, judgments: { offline: judgment } };
  assert.deepEqual(recordVerdict(judged, { spec }).staleJudges, []);
  const edited = { ...judged, prompt: 'List /srv/data please.' };
  const stale = recordVerdict(edited, { spec });
  assert.equal(stale.state, 'stale');
  assert.deepEqual(stale.staleJudges, ['offline']);
  // Judged again: current.
  const rejudged = { ...edited, judgments: { offline: await judgeRecord(edited, spec) } };
  assert.equal(recordVerdict(rejudged, { spec }).state, 'pass');
});

test('offline harnesses of real specs, judged offline, pass: the verdict does not cry wolf', async () => {
  for (const name of ['git-official.json', 'filesystem.json', 'github-npm.json']) {
    const file = join(specsDir, name);
    const load = loadSpecText(readFileSync(file, 'utf8'), file);
    assert.ok(load.ok, name);
    const { records } = generateOffline(load.spec, { seed: 1, simple: 6, complex: 6 });
    const judged = await Promise.all(records.map(async (r) => ({ ...r, judgments: { offline: await judgeRecord(r, load.spec) } })));
    const verdicts = judged.map((r) => recordVerdict(r, { spec: load.spec }));
    const counts = countVerdicts(verdicts.map((x) => x.state));
    const failing = verdicts.flatMap((x) => x.failures).slice(0, 3);
    assert.equal(counts.fail, 0, `${name}: ${describeCounts(counts)}; ${failing.join(' | ')}`);
    assert.equal(counts.pass, records.length, name);
  }
});

test('counts read as words', () => {
  assert.equal(describeCounts(countVerdicts(['fail', 'pass', 'pass', 'stale', 'not-judged'])), '1 failed, 2 passed, 1 outdated, 1 not judged');
  assert.equal(describeCounts(countVerdicts([])), 'no records');
});
