/**
 * `agent-seer diff` and `report --previous` under an LLM judge, view by view. Two copies of one
 * offline harness of git-official.json (with conversations), judged by the real Gemini judge
 * path against the fake Gemini server: A with flawless replies; B with two planted changes, a
 * low TC on one simple scenario's task (its single-turn view) and a low coherence on one complex
 * scenario's conversation (its multi-turn view). Both comparisons must find exactly those two, each
 * under its view, and nothing else; the regression gates fail on them and hold on A against A.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- browser globals inside page.evaluate callbacks (this file compiles without the DOM lib) */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { closeBrowser, ensureBundle, openReport } from './reportPage';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { readHarness } from '../../../../src/core/harness/store';
import { DiffModel } from '../../../../src/core/report/diff';
import { ReportModel } from '../../../../src/core/report/schema';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../../fakes/fakeLlmServer';
import { cli } from '../../cliRunner';
import { noActions } from '../../ciValidation';
import { specsDir } from '../../fixturePaths';
import { cohReply, cohTurns, perfectTc, perfectTcTurn, scriptJudge, turnPlan } from '../../judgeFixtures';

declare const document: any;

describe('diff and report --previous under an LLM judge, per view', () => {
  let root: string;
  let A: string;
  let B: string;
  let gemini: FakeLlmServer;
  let judgeId: string;
  /** The simple scenario whose task TC drops, and the complex one whose conversation's Coh drops. */
  let tcVictim: HarnessRecord;
  let cohVictim: HarnessRecord;
  const env = (): NodeJS.ProcessEnv => ({ ...noActions(), GEMINI_API_KEY: 'k' });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-diff-judged-'));
    gemini = await startFakeGemini({ apiKey: 'k' });
    A = join(root, 'a');
    B = join(root, 'b');
    const g = await cli(['generate', join(specsDir, 'git-official.json'), '--out', A, '--simple', '3', '--complex', '3'], root, env());
    assert.equal(g.code, 0, g.err);
    // Copied before either is judged: each has its own (empty) reply cache.
    await cp(A, B, { recursive: true });
    const { records } = await readHarness(A);
    tcVictim = records.find((r) => r.tier === 'simple' && r.conversation.length < 2)!;
    cohVictim = records.find((r) => r.conversation.length >= 2 && !records.some((o) => o !== r && o.prompt.includes(r.conversation[0]!.prompt)))!;
    assert.ok(tcVictim && cohVictim, 'a simple scenario and a scenario with a conversation');

    scriptJudge(gemini);
    const ja = await cli(['judge', A, '--judge', 'gemini', '--base-url', gemini.url, '--concurrency', '1'], root, env());
    assert.equal(ja.code, 0, ja.err);

    gemini.reset();
    scriptJudge(gemini, {
      // The task of tcVictim (one turn: its single-turn view): the wrong tools chosen.
      tc: (p) => {
        const plan = turnPlan(p);
        if (plan.length === 1 && p.includes(tcVictim.prompt))
          return { json: { turns: plan.map((n, i) => ({ ...perfectTcTurn(i, n), selection: { correctness: 2, specificity: 2, completeness: 2 } })) } };
        return { json: perfectTc(p) };
      },
      // The conversation of cohVictim (several turns: its multi-turn view): incoherent.
      coh: (p) => {
        const turns = cohTurns(p);
        if (turns >= 2 && p.includes(cohVictim.conversation[0]!.prompt))
          // Scores follow the manifestations listed (Table 19's rule): these are what lower them.
          return {
            json: cohReply(turns, (_t, aspect) =>
              aspect === 'logical_flow'
                ? { score: 1, manifestations: ['topic_shift', 'non_sequitur', 'poor_transitions'] }
                : aspect === 'completeness'
                  ? { score: 2, manifestations: ['partial_answer'] }
                  : { score: 3, manifestations: [] },
            ),
          };
        return { json: cohReply(turns) };
      },
    });
    const jb = await cli(['judge', B, '--judge', 'gemini', '--base-url', gemini.url, '--concurrency', '1'], root, env());
    assert.equal(jb.code, 0, jb.err);
    judgeId = Object.keys((await readHarness(A)).records[0]!.judgments ?? {}).find((k) => k !== 'offline')!;
    assert.ok(judgeId, 'the Gemini judge stored its judgment');
  });
  after(async () => {
    await closeBrowser();
    await gemini.close();
    await rm(root, { recursive: true, force: true });
  });

  it('diff compares TC and Coh, view by view: exactly the two planted changes, each under its view', async () => {
    const r = await cli(['diff', A, B, '--judge', judgeId, '--format', 'json'], root, env());
    assert.equal(r.code, 0, r.err);
    const model = DiffModel.parse(JSON.parse(r.out));
    assert.equal(model.judge, judgeId);
    assert.deepEqual(
      model.scenarios.map((s) => `${s.idA} ${s.status}`).sort(),
      [tcVictim.id, cohVictim.id].map((id) => `${id} matched`).sort(),
      'the two planted scenarios, nothing new, vanished or better',
    );
    const tc = model.scenarios.find((s) => s.idA === tcVictim.id)!;
    assert.ok(tc.worse.includes('tc'), tc.worse.join(','));
    assert.ok(!tc.worse.some((w) => w.startsWith('conversation')), tc.worse.join(','));
    const tcChange = tc.scores.find((c) => c.score === 'tc' && c.view === 'single-turn')!;
    assert.equal(tcChange.before, 1);
    assert.ok(tcChange.after! < 1);
    const coh = model.scenarios.find((s) => s.idA === cohVictim.id)!;
    assert.deepEqual(
      coh.worse.filter((w) => w !== 'verdict'),
      ['conversation coh'],
      'only the conversation view got worse',
    );
    const cohChange = coh.scores.find((c) => c.score === 'coh' && c.view === 'conversation')!;
    assert.equal(cohChange.before, 1);
    assert.ok(cohChange.after! < 0.9, String(cohChange.after));
    assert.equal(coh.scores.find((c) => c.score === 'coh' && c.view === 'single-turn')?.direction, 'same');
    assert.equal(model.counts.better, 0);
    assert.ok(model.scenarios.every((s) => s.better.length === 0));
    // Without --judge the LLM judge is picked over the offline one both harnesses also hold.
    const byDefault = DiffModel.parse(JSON.parse((await cli(['diff', A, B, '--format', 'json'], root, env())).out));
    assert.equal(byDefault.judge, judgeId);

    const gate = await cli(['diff', A, B, '--fail-on-regression', '0.1'], root, env());
    assert.equal(gate.code, 6, gate.err);
    const drop = (1 - cohChange.after!).toFixed(2);
    assert.ok(gate.err.includes(`${cohVictim.id}: conversation coh 1.00 → ${cohChange.after!.toFixed(2)} (−${drop})`), gate.err);
    assert.match(gate.err, /--fail-on-regression 0\.1 failed: 2 scenarios regressed; /);
    assert.ok(gate.out.includes(`| conversation coh 1 → ${cohChange.after!.toFixed(2)} (−${drop})`), gate.out);
    const self = await cli(['diff', B, B, '--fail-on-regression', '0'], root, env());
    assert.equal(self.code, 0, self.err);
  });

  it('report --previous: a section with the scores then and now and the two planted scenarios; --fail-on-regression gates on them', async () => {
    const old = join(root, 'a.json');
    const ra = await cli(['report', A, '--format', 'json', '--out', old, '--resamples', '200'], root, env());
    assert.equal(ra.code, 0, ra.err);
    const previous = ReportModel.parse(JSON.parse(await readFile(old, 'utf8')));
    assert.equal(previous.scenarios.length, (await readHarness(A)).records.length);
    assert.equal(previous.since, undefined);

    const rb = await cli(['report', B, '--previous', old, '--format', 'json', '--resamples', '200'], root, env());
    assert.equal(rb.code, 0, rb.err);
    const since = ReportModel.parse(JSON.parse(rb.out)).since!;
    assert.ok(since);
    assert.deepEqual(since.judge, { before: judgeId, after: judgeId });
    const tcRow = since.scores.find((s) => s.score === 'tc')!;
    assert.equal(tcRow.before, 1);
    assert.ok(tcRow.after! < 1 && tcRow.delta! < 0);
    assert.ok(since.scores.find((s) => s.score === 'coh')!.delta! < 0);
    assert.equal(since.scores.find((s) => s.score === 'exact')!.delta, 0, 'the exact score did not move');
    assert.deepEqual(since.scenarios.map((s) => s.idA).sort(), [tcVictim.id, cohVictim.id].sort());
    assert.deepEqual(since.counts && [since.counts.worse, since.counts.better, since.counts.new, since.counts.vanished], [2, 0, 0, 0]);

    const md = await cli(['report', B, '--previous', old, '--resamples', '200'], root, env());
    assert.equal(md.code, 0, md.err);
    const section = md.out.slice(md.out.indexOf('## Since the previous report'));
    assert.ok(md.out.includes('## Since the previous report'), md.out.slice(0, 2000));
    assert.ok(md.out.indexOf('## Since the previous report') > md.out.indexOf('## Worst scenarios'));
    assert.match(section, /\| TC \| 1\.000 \| 0\.\d{3} \| −0\.\d{3} \|/);
    assert.match(section, new RegExp(`\\| ${cohVictim.id} \\| .* \\| changed \\| conversation coh 1\\.000 → 0\\.\\d{3}`));

    const html = join(root, 'b.html');
    // The page script the HTML report inlines, built from the sources when they are newer.
    ensureBundle();
    assert.equal((await cli(['report', B, '--previous', old, '--format', 'html', '--out', html, '--resamples', '200'], root, env())).code, 0);
    // The page opens on the worst scenarios, then this section, then the figures.
    const { page, log } = await openReport(await readFile(html, 'utf8'), join(root, 'opened.html'));
    const order = await page.evaluate(() => Array.from<any>(document.querySelectorAll('main > section[id^="s-"]')).map((x) => String(x.id)));
    const rows = await page.evaluate(() => Array.from<any>(document.querySelectorAll('#s-since tbody tr')).map((x) => String(x.textContent)));
    await page.close();
    assert.deepEqual(order.slice(0, 3), ['s-worst', 's-since', 's-figures']);
    assert.ok(
      rows.some((r) => r.includes(cohVictim.id) && r.includes('conversation coh')),
      rows.join('\n'),
    );
    assert.deepEqual(log.errors, []);

    const gate = await cli(['report', B, '--previous', old, '--fail-on-regression', '0.1', '--format', 'json', '--resamples', '200'], root, env());
    assert.equal(gate.code, 6, gate.err);
    assert.match(gate.err, /^agent-seer: --fail-on-regression 0\.1 failed: 2 scenarios regressed;/m);
    const held = await cli(['report', A, '--previous', old, '--fail-on-regression', '0', '--format', 'json', '--resamples', '200'], root, env());
    assert.equal(held.code, 0, held.err);
    assert.match(held.err, /--fail-on-regression 0: no scenario dropped/);
  });

  it('report --previous refuses what is not a report JSON, and --fail-on-regression without --previous, with exit 2 and one line', async () => {
    const bad = join(root, 'not-a-report.json');
    await cp(join(A, 'manifest.json'), bad);
    const r = await cli(['report', A, '--previous', bad], root, env());
    assert.equal(r.code, 2);
    assert.match(r.err, /not-a-report\.json: not a report JSON \(/);
    const lone = await cli(['report', A, '--fail-on-regression', '0.1'], root, env());
    assert.equal(lone.code, 2);
    assert.match(lone.err, /--fail-on-regression compares with a previous report: give it --previous FILE/);
  });
});
