/**
 * `agent-seer diff` on real harness folders: two offline harnesses of slack.json, generated and
 * judged by the CLI in process, with regressions planted in B (an expected argument that comes
 * from nowhere, a record removed, a record added, a record's id changed, a tool description
 * edited in B's spec.json, then B judged again). The diff must find exactly the planted changes
 * and nothing else; the gate fails on them and passes on A against A. Then two runs of agents.
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import Ajv from 'ajv';
import { diffJsonSchema, DIFF_SCHEMA_FILE, DiffModel, pairScenarios } from '../../../../src/core/report/diff';
import type { HarnessManifest, HarnessRecord } from '../../../../src/core/harness/format';
import { readHarness } from '../../../../src/core/harness/store';
import { agentRunsDir, runTwoAgents, type TwoAgentRuns } from '../../agentRuns';
import { cli } from '../../cliRunner';
import { trajectoryFile } from '../../../../src/core/agents/runHarness';
import type { Trajectory } from '../../../../src/core/agents/trajectory';
import { repoRoot, specsDir } from '../../fixturePaths';

const env = { PATH: process.env.PATH };
const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(file, 'utf8')) as T;
const writeJson = (file: string, v: unknown): Promise<void> => writeFile(file, `${JSON.stringify(v, null, 2)}\n`);

describe('agent-seer diff of two judged harnesses', () => {
  let root: string;
  let A: string;
  let B: string;
  /** What was planted in B. */
  const planted = { argument: '', removed: '', added: '', renamedFrom: '', renamedTo: '', tool: '' };
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-diff-'));
    A = join(root, 'a');
    B = join(root, 'b');
    const g = await cli(['generate', join(specsDir, 'slack.json'), '--out', A, '--simple', '4', '--complex', '4'], root, env);
    assert.equal(g.code, 0, g.err);
    const j = await cli(['judge', A], root, env);
    assert.equal(j.code, 0, j.err);
    await cp(A, B, { recursive: true });
    const { records } = await readHarness(B);
    const passing = records.filter((r) => r.judgments?.offline && (r.judgments.offline as { exact?: number }).exact === 1);
    assert.ok(passing.length >= 4, `enough passing records (${passing.length} of ${records.length})`);
    // 1. An expected argument (an id of a later call) that no prompt or output holds.
    const victim = passing.find((r) =>
      r.expected_tools.some((c, i) => i > 0 && Object.entries(c.arguments).some(([k, v]) => /id|channel|user/i.test(k) && typeof v === 'string')),
    )!;
    assert.ok(victim, 'a record with an id argument in a later call');
    const call = victim.expected_tools.find(
      (c, i) => i > 0 && Object.entries(c.arguments).some(([k, v]) => /id|channel|user/i.test(k) && typeof v === 'string'),
    )!;
    const key = Object.keys(call.arguments).find((k) => /id|channel|user/i.test(k) && typeof call.arguments[k] === 'string')!;
    call.arguments[key] = 'C0PLANTED99';
    planted.argument = victim.id;
    await writeJson(join(B, 'records', `${victim.id}.json`), victim);
    const others = passing.filter((r) => r.id !== victim.id);
    // 2. A record removed; 3. a record added (a copy under a new id and title); 4. a record's id changed, its title kept.
    planted.removed = others[0]!.id;
    await unlink(join(B, 'records', `${planted.removed}.json`));
    const copy = { ...structuredClone(others[1]!), id: 'planted-new', title: 'A planted new scenario' } as HarnessRecord;
    delete copy.judgments;
    planted.added = copy.id;
    await writeJson(join(B, 'records', 'planted-new.json'), copy);
    planted.renamedFrom = others[2]!.id;
    planted.renamedTo = `${others[2]!.id}-regenerated`;
    const renamed = { ...others[2]!, id: planted.renamedTo };
    await unlink(join(B, 'records', `${planted.renamedFrom}.json`));
    await writeJson(join(B, 'records', `${planted.renamedTo}.json`), renamed);
    const manifest = await readJson<HarnessManifest>(join(B, 'manifest.json'));
    manifest.recordIds = [...manifest.recordIds.filter((id) => id !== planted.removed && id !== planted.renamedFrom), planted.added, planted.renamedTo].sort();
    await writeJson(join(B, 'manifest.json'), manifest);
    // 5. A tool description edited in B's spec copy.
    const spec = await readJson<{ tools: { name: string; description?: string }[] }>(join(B, 'spec.json'));
    planted.tool = others[3]!.expected_tools[0]!.name;
    const tool = spec.tools.find((t) => t.name === planted.tool)!;
    tool.description = `${tool.description ?? ''} Edited: say when to use it.`;
    await writeJson(join(B, 'spec.json'), spec);
    const jb = await cli(['judge', B], root, env);
    assert.ok(jb.code === 0 || jb.code === 1, jb.err);
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('finds exactly the planted changes', async () => {
    const r = await cli(['diff', A, B, '--format', 'json'], root, env);
    assert.equal(r.code, 0, r.err);
    const model = DiffModel.parse(JSON.parse(r.out));
    const worse = model.scenarios.filter((s) => s.worse.length);
    assert.deepEqual(
      worse.map((s) => s.idA),
      [planted.argument],
      'the one planted regression, no other',
    );
    assert.ok(worse[0]!.worse.includes('exact') && worse[0]!.worse.includes('verdict'), worse[0]!.worse.join(','));
    assert.equal(worse[0]!.verdict.after, 'fail');
    assert.ok(
      worse[0]!.failures.some((f) => f.includes('C0PLANTED99')),
      worse[0]!.failures.join('\n'),
    );
    assert.deepEqual(
      model.scenarios.filter((s) => s.better.length).map((s) => s.idA),
      [],
    );
    assert.deepEqual(
      model.scenarios.filter((s) => s.status === 'new').map((s) => s.idB),
      [planted.added],
    );
    assert.deepEqual(
      model.scenarios.filter((s) => s.status === 'vanished').map((s) => s.idA),
      [planted.removed],
    );
    const byTitle = model.scenarios.filter((s) => s.matchedBy === 'title');
    assert.deepEqual(
      byTitle.map((s) => [s.idA, s.idB]),
      [[planted.renamedFrom, planted.renamedTo]],
    );
    assert.equal(model.counts.matchedByTitle, 1);
    assert.deepEqual(model.specChanges, { added: [], removed: [], changed: [{ name: planted.tool, parts: ['description'] }] });
    assert.equal(model.judge, 'offline');
    // The offline judge scores no TC or Coh: those are left out, not listed as unscored.
    assert.ok(model.scenarios.every((s) => s.scores.every((c) => c.score !== 'tc' && c.score !== 'coh')));
    // The edited tool is named on the scenarios that call it, and is no regression of theirs.
    const callers = model.scenarios.filter((s) => s.toolsChanged.includes(planted.tool));
    assert.ok(callers.length >= 1);
    assert.ok(new Ajv({ strict: false }).compile(diffJsonSchema())(model), 'the output validates against the published schema');
  });

  it('prints a Markdown table, worst first, with the new and vanished scenarios', async () => {
    const r = await cli(['diff', A, B], root, env);
    assert.equal(r.code, 0, r.err);
    const rows = r.out.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| scenario'));
    assert.ok(rows[0]!.includes(planted.argument) && rows[0]!.includes('pass → fail'), rows[0]);
    assert.match(r.out, /## Spec changes\n\n- changed: \S+ \(description\)/);
    assert.match(r.out, new RegExp(`## New in B\\n\\n- ${planted.added} `));
    assert.match(r.out, new RegExp(`## Vanished from A\\n\\n- ${planted.removed} `));
    assert.match(r.out, /matched by id, 1 by title/);
  });

  it('--fail-on-regression fails on the planted regression, saying which bar and by how much, and passes on A against A', async () => {
    const r = await cli(['diff', A, B, '--fail-on-regression', '0.1'], root, env);
    assert.equal(r.code, 6, r.err);
    const last = r.err.trim().split('\n').at(-1)!;
    assert.match(
      last,
      /^agent-seer: --fail-on-regression 0\.1 failed: 1 scenario regressed; .* exact dropped by 0\.\d\d \(1\.00 → 0\.\d\d\), more than 0\.1; 1 passing scenario now fails/,
    );
    assert.ok(last.includes(planted.argument), last);
    // A drop under the bar still fails the gate when the scenario went from pass to fail.
    assert.equal((await cli(['diff', A, B, '--fail-on-regression', '0.99'], root, env)).code, 6);
    const same = await cli(['diff', A, A, '--fail-on-regression', '0', '--format', 'json'], root, env);
    assert.equal(same.code, 0, same.err);
    const model = DiffModel.parse(JSON.parse(same.out));
    assert.deepEqual(model.scenarios, []);
    assert.equal(model.counts.unchanged, model.counts.matchedById);
    assert.deepEqual(model.specChanges, { added: [], removed: [], changed: [] });
  });

  it('refuses bad input with exit 2 and one line', async () => {
    assert.equal((await cli(['diff', A], root, env)).code, 2);
    const notAFolder = await cli(['diff', A, join(root, 'nope')], root, env);
    assert.equal(notAFolder.code, 2);
    assert.match(notAFolder.err, /nope: neither a harness folder/);
    assert.equal((await cli(['diff', A, B, '--judge', 'gemini-x'], root, env)).code, 2);
    assert.equal((await cli(['diff', A, B, '--fail-on-regression', '2'], root, env)).code, 2);
    assert.equal((await cli(['diff', A, B, '--format', 'html'], root, env)).code, 2);
    const help = await cli(['diff', '--help'], root, env);
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: agent-seer diff <A> <B>/);
    assert.match((await cli(['--help'], root, env)).out, /agent-seer diff <A> <B>/);
  });
});

test('pairScenarios pairs by id, then by a title only one scenario on each side has', () => {
  const s = (id: string, title: string) => ({ id, title });
  const { pairs, onlyA, onlyB } = pairScenarios(
    [s('a', 'One'), s('b', 'Two'), s('c', 'Same'), s('d', 'Same')],
    [s('a', 'Renamed'), s('b2', 'two'), s('c2', 'Same'), s('d2', 'Same'), s('e', 'New')],
  );
  assert.deepEqual(
    pairs.map((p) => [p.a.id, p.b.id, p.by]),
    [
      ['a', 'a', 'id'],
      ['b', 'b2', 'title'],
    ],
  );
  assert.deepEqual(
    onlyA.map((x) => x.id),
    ['c', 'd'],
  );
  assert.deepEqual(
    onlyB.map((x) => x.id),
    ['c2', 'd2', 'e'],
  );
});

test('the checked-in schemas/diff.schema.json matches the zod schema (npm run gen-schemas)', async () => {
  const onDisk = await readJson<Record<string, unknown>>(join(repoRoot, 'schemas', DIFF_SCHEMA_FILE));
  assert.deepEqual(onDisk, diffJsonSchema(), `schemas/${DIFF_SCHEMA_FILE} is out of date: npm run gen-schemas`);
});

describe('agent-seer diff of two agent runs', () => {
  let t: TwoAgentRuns;
  before(async () => {
    t = await runTwoAgents('agent-seer-diff-runs-');
  });
  after(() => t.cleanup());

  it('finds the scenarios an argument-changing agent fails, and exactly the changes planted in a copy of a run', async () => {
    const oracle = join(agentRunsDir(t, t.oracle), '1');
    const changer = join(agentRunsDir(t, t.changer), '1');
    // The scenarios whose calls have a first argument the changer alters (strings and numbers).
    const expected = t.records
      .filter((r) => r.expected_tools.some((c) => t.changed.has(`${c.name}\u241f${Object.keys(c.arguments)[0]}`)))
      .map((r) => r.id)
      .sort();
    assert.ok(expected.length > 0 && expected.length <= t.records.length);
    const r = await cli(['diff', oracle, changer, '--format', 'json', '--fail-on-regression', '0.5'], t.root, env);
    assert.equal(r.code, 6, r.err);
    const model = DiffModel.parse(JSON.parse(r.out));
    assert.equal(model.kind, 'run');
    const worse = model.scenarios.filter((s) => s.worse.length);
    assert.deepEqual(worse.map((s) => s.idA).sort(), expected);
    for (const s of worse) {
      assert.ok(s.worse.includes('callScore') && s.worse.includes('verdict'), s.worse.join(','));
      assert.ok(
        s.failures.some((f) => / wrong/.test(f)),
        s.failures.join('\n'),
      );
    }
    assert.deepEqual(
      model.scenarios.filter((s) => s.status !== 'matched' || s.better.length),
      [],
    );
    assert.match(r.err.trim().split('\n').at(-1)!, /--fail-on-regression 0\.5 failed: \d+ scenarios? regressed; .*callScore dropped by/);
    // Run 1 against run 2 of the same agent: nothing changed, the gate passes.
    const same = await cli(['diff', oracle, join(agentRunsDir(t, t.oracle), '2'), '--fail-on-regression', '0'], t.root, env);
    assert.equal(same.code, 0, same.err);
    assert.match(same.out, /## Changed scenarios \(worst first\)\n\nNone\./);
    // Planted in a copy of the oracle's run: one call's argument changed, one trajectory removed.
    const planted = join(agentRunsDir(t, t.oracle), 'planted');
    await cp(oracle, planted, { recursive: true });
    const [victim, gone] = t.records;
    const file = trajectoryFile(planted, victim!.id);
    const trajectory = await readJson<Trajectory>(file);
    const call = trajectory.calls.find((c) => Object.values(c.arguments as Record<string, unknown>).some((v) => typeof v === 'string'))!;
    const args = call.arguments as Record<string, unknown>;
    const key = Object.keys(args).find((k) => typeof args[k] === 'string')!;
    args[key] = `${String(args[key])}-planted`;
    await writeJson(file, trajectory);
    await unlink(trajectoryFile(planted, gone!.id));
    const p = await cli(['diff', oracle, planted, '--format', 'json'], t.root, env);
    assert.equal(p.code, 0, p.err);
    const pm = DiffModel.parse(JSON.parse(p.out));
    assert.deepEqual(
      pm.scenarios.map((s) => [s.status, s.idA, s.worse]),
      [
        ['matched', victim!.id, ['callScore', 'verdict']],
        ['vanished', gone!.id, []],
      ],
    );
    assert.ok(
      pm.scenarios[0]!.failures.some((f) => f.includes(`${key} wrong`)),
      pm.scenarios[0]!.failures.join('\n'),
    );
    // A run against a harness is refused.
    assert.equal((await cli(['diff', oracle, t.harness], t.root, env)).code, 2);
  });
});
