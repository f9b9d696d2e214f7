/**
 * `agent-seer report` over a harness with runs of two scripted agents (see ../agentRuns.ts): the
 * leaderboard in the JSON and Markdown without any flag, and the `--min-score` gate's exit codes.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ReportModel } from '../../../src/core/report/schema';
import { runTwoAgents, type TwoAgentRuns } from '../agentRuns';
import { cli } from '../cliRunner';
import { specsDir } from '../fixturePaths';

describe('agent-seer report: the leaderboard', () => {
  let t: TwoAgentRuns;
  let changerExact: number;
  before(async () => {
    t = await runTwoAgents('agent-seer-board-cli-');
  });
  after(async () => t?.cleanup());

  it('is in the report when runs exist, without any flag', async () => {
    const r = await cli(['report', t.harness, '--format', 'json', '--resamples', '200'], t.root);
    assert.equal(r.code, 0, r.err);
    const model = JSON.parse(r.out) as ReportModel;
    assert.deepEqual(
      model.leaderboard.map((a) => a.agent),
      [t.oracle, t.changer],
    );
    changerExact = model.leaderboard[1]!.overall.callScore.mean!;
    assert.ok(changerExact < 1);
    assert.match(r.err, /4 runs of 2 agents/);
    const md = await cli(['report', t.harness, '--resamples', '200'], t.root);
    assert.match(md.out, /## Agent leaderboard/);
  });

  it('--min-score: exit 6 naming every agent below, 0 when all reach it, 2 for a bad value', async () => {
    const above = await cli(['report', t.harness, '--resamples', '100', '--min-score', String(changerExact + 0.01)], t.root);
    assert.equal(above.code, 6);
    const lines = above.err.split('\n').filter((l) => /is below --min-score/.test(l));
    assert.deepEqual(lines, [`agent-seer: agent ${t.changer}: call score ${changerExact.toFixed(3)} is below --min-score ${changerExact + 0.01}`]);
    assert.equal((await cli(['report', t.harness, '--resamples', '100', '--min-score', String(changerExact)], t.root)).code, 0);
    const bad = await cli(['report', t.harness, '--min-score', '1.5'], t.root);
    assert.equal(bad.code, 2);
    assert.equal(bad.err, 'agent-seer: --min-score takes a score between 0 and 1, got "1.5"');
  });

  it('--min-score on harnesses without runs cannot pass: exit 6, said', async () => {
    const plain = join(t.root, 'plain');
    assert.equal((await cli(['generate', join(specsDir, 'filesystem.json'), '--out', plain, '--simple', '2', '--complex', '1'])).code, 0);
    const r = await cli(['report', plain, '--resamples', '100', '--min-score', '0'], t.root);
    assert.equal(r.code, 6);
    assert.match(r.err, /no agent runs with scored trajectories in these harnesses, so --min-score 0 cannot pass/);
  });
});
