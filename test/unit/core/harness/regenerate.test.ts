/** Regenerating a harness keeps the judgments of records whose content did not change. */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readHarness } from '../../../../src/core/harness/store';
import { cli } from '../../cliRunner';
import { specsDir } from '../../fixturePaths';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-seer-regen-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('an unchanged regenerate keeps every judgment; a changed tool drops only its records’ judgments', async () => {
  const spec = join(root, 'git.json');
  const original = JSON.parse(await readFile(join(specsDir, 'git-official.json'), 'utf8')) as { tools: { name: string; description: string }[] };
  await writeFile(spec, JSON.stringify(original));
  const out = join(root, 'h');
  const gen = ['generate', spec, '--out', out, '--simple', '4', '--complex', '3'];
  assert.equal((await cli(gen)).code, 0);
  assert.equal((await cli(['judge', out])).code, 0);
  const judged = await readHarness(out);
  assert.ok(judged.records.length > 0 && judged.records.every((r) => r.judgments?.offline));

  assert.equal((await cli(gen)).code, 0);
  const again = await readHarness(out);
  assert.deepEqual(
    again.records.map((r) => [r.id, r.judgments]),
    judged.records.map((r) => [r.id, r.judgments]),
    'same records, same judgments',
  );
  const rejudge = await cli(['judge', out, '--json']);
  assert.equal(rejudge.code, 0);
  assert.match(rejudge.out, /"judged": 0/, 'nothing to judge anew');

  // Change one tool's description: the records that use it change (their tool hash), the rest do not.
  const changed = original.tools[0]!.name;
  original.tools[0]!.description += ' Changed.';
  await writeFile(spec, JSON.stringify(original));
  assert.equal((await cli(gen)).code, 0);
  const after = await readHarness(out);
  const uses = (r: (typeof after.records)[number]): boolean => r.expected_tools.some((c) => c.name === changed);
  assert.ok(after.records.some(uses) && after.records.some((r) => !uses(r)), 'both kinds present');
  for (const r of after.records) assert.equal(r.judgments === undefined, uses(r), r.id);
});
