/**
 * The judge's arithmetic, without any LLM: Table 18's aggregation (ordering n/a with one call,
 * overuse excluded), each cascade rule, chained values not penalised, exact facts overruling
 * the judge (and the disagreement recorded), coherence with and without history, and the
 * offline judge's exact-only scores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  aggregate,
  applyCascades,
  cohScoreForManifestations,
  reconcileCohReply,
  reconcileTcReply,
  buildView,
  exactFacts,
  factsText,
  scoreCohTurn,
  scoreTcTurn,
  viewFacts,
  type ArgumentScores,
  type CascadeTriggers,
  type CohTurnReply,
  type TcTurnReply,
  type TurnContext,
} from '../../../../src/core/judge';
import { COH_SCALE_MAX } from '../../../../src/core/vocabulary';
import { cohReply, fileSpec, makeRecord, perfectTcTurn } from '../../judgeFixtures';

const spec = fileSpec();
const close = (a: number | null | undefined, b: number, what = ''): void => {
  assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-3, `${what}: expected ${b}, got ${a}`);
};

/** A turn context over these calls (indices 0…n-1), exact facts computed against the spec. */
function ctx(calls: { name: string; arguments: unknown }[]): TurnContext {
  const facts = exactFacts(spec, calls);
  return { turn: 0, calls: calls.map((_, i) => i), facts };
}

/** A flawless reply for n calls with some fields replaced. */
function reply(n: number, patch: (t: TcTurnReply) => void = () => undefined): TcTurnReply {
  const t = perfectTcTurn(0, n);
  patch(t);
  return t;
}

const readCall = { name: 'read_file', arguments: { path: '/srv/a.txt' } };
const listCall = { name: 'list_files', arguments: { path: '/srv' } };

describe('aggregation (Table 18)', () => {
  const cases: { name: string; calls: (typeof readCall)[]; reply: TcTurnReply; tc: number; ordering: number | null; selection?: number }[] = [
    { name: 'one call, flawless: ordering n/a', calls: [readCall], reply: reply(1), tc: 1, ordering: null },
    {
      name: 'one call: ordering scores the judge sent anyway are ignored',
      calls: [readCall],
      reply: reply(1, (t) => (t.ordering = { sequence_logic: 0, dependency_handling: 0, execution_efficiency: 0 })),
      tc: 1,
      ordering: null,
    },
    {
      name: 'one call, selection (10, 10, 7): tc = mean(usage, selection, arguments)',
      calls: [readCall],
      reply: reply(1, (t) => (t.selection.completeness = 7)),
      tc: (1 + 0.9 + 1) / 3,
      ordering: null,
      selection: 0.9,
    },
    {
      name: 'two calls, ordering (6, 8, 10) counts',
      calls: [listCall, readCall],
      reply: reply(2, (t) => (t.ordering = { sequence_logic: 6, dependency_handling: 8, execution_efficiency: 10 })),
      tc: (1 + 1 + 0.8 + 1) / 4,
      ordering: 0.8,
    },
    {
      name: 'overuse 2 is a diagnostic: usage = necessity, tc unchanged',
      calls: [readCall],
      reply: reply(1, (t) => (t.usage.overuse = 2)),
      tc: 1,
      ordering: null,
    },
    {
      name: 'necessity 4 lowers usage and tc',
      calls: [readCall],
      reply: reply(1, (t) => (t.usage.necessity = 4)),
      tc: (0.4 + 1 + 1) / 3,
      ordering: null,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = scoreTcTurn(ctx(c.calls), c.reply);
      close(s.tc, c.tc, 'tc');
      assert.equal(s.dimensions.ordering, c.ordering);
      if (c.ordering === null) assert.equal(s.subdimensions['ordering.sequence_logic'], null);
      if (c.selection !== undefined) close(s.dimensions.selection, c.selection, 'selection');
      assert.deepEqual(s.disagreements, []);
    });
  }

  it('overuse is stored but left out of usage', () => {
    const s = scoreTcTurn(
      ctx([readCall]),
      reply(1, (t) => (t.usage.overuse = 2)),
    );
    assert.equal(s.subdimensions['usage.overuse'], 0.2);
    assert.equal(s.dimensions.usage, 1);
  });

  it('record = mean of turns; each dimension over the turns it applies to', () => {
    const t0 = scoreTcTurn(
      ctx([listCall, readCall]),
      reply(2, (t) => (t.ordering = { sequence_logic: 5, dependency_handling: 5, execution_efficiency: 5 })),
    );
    const t1 = scoreTcTurn(
      { ...ctx([readCall]), turn: 1 },
      reply(1, (t) => (t.usage.necessity = 0)),
    );
    const r = aggregate([t0, t1], []);
    close(t0.tc, (1 + 1 + 0.5 + 1) / 4, 't0');
    close(t1.tc, (0 + 1 + 1) / 3, 't1');
    close(r.tc, ((1 + 1 + 0.5 + 1) / 4 + 2 / 3) / 2, 'record tc');
    close(r.dimensions.ordering, 0.5, 'ordering only from turn 0');
    close(r.dimensions.usage, 0.5, 'usage');
    assert.equal(r.coh, null);
  });

  it('a turn with no calls: arguments and ordering n/a, usage and selection scored', () => {
    const s = scoreTcTurn(
      { turn: 0, calls: [], facts: [] },
      reply(0, (t) => (t.selection.completeness = 0)),
    );
    assert.equal(s.dimensions.arguments, null);
    assert.equal(s.dimensions.ordering, null);
    close(s.tc, (1 + 2 / 3) / 2, 'tc');
  });
});

describe('cascades (Table 18 footnote)', () => {
  const clean: ArgumentScores = { completeness: 10, name: 10, value: 9, type: 9, format: 8, relevancy: 10 };
  const none: CascadeTriggers = { misnamedParam: false, missingRequired: false, wrongValue: false };
  const cases: { name: string; scores: Partial<ArgumentScores>; triggers?: Partial<CascadeTriggers>; rules: string[]; expect: Partial<ArgumentScores> }[] = [
    { name: 'no trigger, no change', scores: {}, rules: [], expect: clean },
    {
      name: 'wrong name (≤ 2) → value, type, format near zero',
      scores: { name: 2 },
      rules: ['wrong-name'],
      expect: { name: 2, value: 1, type: 1, format: 1, relevancy: 10 },
    },
    { name: 'name 3 is not a wrong name', scores: { name: 3 }, rules: [], expect: { value: 9, type: 9, format: 8 } },
    {
      name: 'an exact misnamed parameter triggers it whatever the score',
      scores: { name: 9 },
      triggers: { misnamedParam: true },
      rules: ['wrong-name'],
      expect: { name: 9, value: 1, type: 1, format: 1 },
    },
    {
      name: 'missing required (fact) → value, type, format',
      scores: {},
      triggers: { missingRequired: true },
      rules: ['missing-required'],
      expect: { completeness: 10, value: 1, type: 1, format: 1, relevancy: 10 },
    },
    { name: 'missing required (completeness ≤ 2)', scores: { completeness: 0 }, rules: ['missing-required'], expect: { value: 1, type: 1, format: 1 } },
    {
      name: 'wrong value (≤ 3) → type, format, relevancy',
      scores: { value: 3 },
      rules: ['wrong-value'],
      expect: { value: 3, type: 1, format: 1, relevancy: 1, name: 10, completeness: 10 },
    },
    { name: 'value 4 is not a wrong value', scores: { value: 4 }, rules: [], expect: { type: 9, format: 8, relevancy: 10 } },
    {
      name: 'a value zeroed by a wrong name does not go on to cap relevancy',
      scores: { name: 0, value: 9 },
      rules: ['wrong-name'],
      expect: { value: 1, relevancy: 10 },
    },
    {
      name: 'scores already near zero are left as they are',
      scores: { value: 0, type: 0, format: 1, relevancy: 0 },
      rules: ['wrong-value'],
      expect: { type: 0, format: 1, relevancy: 0 },
    },
    { name: 'null sub-scores stay null', scores: { value: null, name: 1 }, rules: ['wrong-name'], expect: { value: null, type: 1, format: 1 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { scores, applied } = applyCascades({ ...clean, ...c.scores }, { ...none, ...c.triggers });
      assert.deepEqual(
        applied.map((a) => a.rule),
        c.rules,
      );
      for (const [k, v] of Object.entries(c.expect)) assert.equal(scores[k as keyof ArgumentScores], v, k);
    });
  }

  it('through a scored turn: a misnamed required parameter collapses the argument mean', () => {
    // `pth` for `path`: a wrong name and a missing required parameter at once.
    const s = scoreTcTurn(ctx([{ name: 'read_file', arguments: { pth: '/srv/a.txt' } }]), reply(1));
    assert.equal(s.subdimensions['arguments.name'], 0);
    assert.equal(s.subdimensions['arguments.completeness'], 0);
    assert.equal(s.subdimensions['arguments.value'], 0.1);
    assert.equal(s.subdimensions['arguments.type'], 0.1);
    assert.equal(s.subdimensions['arguments.format'], 0.1);
    assert.equal(s.subdimensions['arguments.relevancy'], 1, 'a misnaming is not an extra parameter');
    close(s.dimensions.arguments, (0 + 0 + 0.1 + 0.1 + 0.1 + 1) / 6, 'arguments');
    assert.deepEqual(s.cascades.map((c) => c.rule).sort(), ['missing-required', 'wrong-name']);
    const nameFinding = s.findings.find((f) => f.subdimension === 'arguments.name');
    assert.deepEqual({ call: nameFinding?.callIndex, param: nameFinding?.param, source: nameFinding?.source }, { call: 0, param: 'pth', source: 'exact' });
    assert.match(nameFinding?.reason ?? '', /'path'/);
  });
});

describe('chained values are not penalised', () => {
  const record = makeRecord({
    id: 'chain',
    prompt: 'Show me the newest report in /srv.',
    calls: [
      { name: 'list_files', arguments: { path: '/srv' } },
      { name: 'read_file', arguments: { path: '/srv/report-2026-05.txt', encoding: 'utf8' } },
    ],
    outputs: [{ files: [{ path: '/srv/report-2026-05.txt', size: 1200 }] }, { text: 'Revenue up 4%' }],
  });
  const view = buildView(record, 'unsupervised');
  assert.ok(view.ok);
  const vf = viewFacts(view.view, spec);
  const withValueFinding = (kind: 'ungrounded' | 'incorrect', param = 'path'): TcTurnReply =>
    reply(2, (t) => {
      t.arguments = { completeness: 10, name_accuracy: 10, value_accuracy: 2, type_compliance: 10, format_compliance: 10, relevancy: 10 };
      t.findings = [{ call: 1, param, subdimension: 'arguments.value', score: 2, kind, reason: 'the user never gave this path' }];
    });

  it('the chained value is among the facts', () => {
    assert.deepEqual(vf.chained, [{ callIndex: 1, param: 'path', value: '/srv/report-2026-05.txt', fromCall: 0 }]);
  });

  it('an "ungrounded" finding on a value from an earlier output is waived; value restored, no cascade', () => {
    const s = scoreTcTurn(vf.turns[0]!, withValueFinding('ungrounded'));
    assert.equal(s.subdimensions['arguments.value'], 1);
    assert.equal(s.subdimensions['arguments.relevancy'], 1, 'no wrong-value cascade');
    assert.deepEqual(s.cascades, []);
    const f = s.findings.find((x) => x.subdimension === 'arguments.value');
    assert.match(f?.waived ?? '', /output of call 0/);
    assert.equal(s.disagreements.length, 1);
    assert.equal(s.disagreements[0]?.param, 'path');
    close(s.tc, 1, 'tc');
  });

  it('an "incorrect" finding stands (the value is there but wrong), and cascades', () => {
    const s = scoreTcTurn(vf.turns[0]!, withValueFinding('incorrect'));
    assert.equal(s.subdimensions['arguments.value'], 0.2);
    assert.equal(s.subdimensions['arguments.relevancy'], 0.1);
    assert.deepEqual(
      s.cascades.map((c) => c.rule),
      ['wrong-value'],
    );
    assert.equal(s.findings.find((x) => x.subdimension === 'arguments.value')?.waived, undefined);
  });

  it('an "ungrounded" finding on a value found nowhere stands', () => {
    const r2 = makeRecord({ ...{ id: 'x', prompt: 'Show me the newest report.' }, calls: record.expected_tools, outputs: [{ files: [] }, {}] });
    const v2 = buildView(r2, 'unsupervised');
    assert.ok(v2.ok);
    const s = scoreTcTurn(viewFacts(v2.view, spec).turns[0]!, withValueFinding('ungrounded'));
    assert.equal(s.subdimensions['arguments.value'], 0.2);
    assert.equal(s.disagreements.length, 0);
  });
});

describe('exact facts overrule the judge', () => {
  it('a type error the judge missed: the fact wins and the disagreement is noted', () => {
    const s = scoreTcTurn(ctx([{ name: 'list_files', arguments: { path: '/srv', limit: 'ten' } }]), reply(1));
    assert.equal(s.subdimensions['arguments.type'], 0.5, '1 of 2 parameters has the wrong type');
    const d = s.disagreements.find((x) => x.subdimension === 'arguments.type');
    assert.ok(d, JSON.stringify(s.disagreements));
    assert.equal(d.judge, 1);
    assert.equal(d.final, 0.5);
    assert.match(d.reason, /limit/);
    const f = s.findings.find((x) => x.subdimension === 'arguments.type');
    assert.equal(f?.param, 'limit');
  });

  it('an extra parameter the judge missed lowers relevancy', () => {
    const s = scoreTcTurn(ctx([{ name: 'list_files', arguments: { path: '/srv', recursive: true } }]), reply(1));
    assert.equal(s.subdimensions['arguments.relevancy'], 0.5);
    assert.ok(s.disagreements.some((d) => d.subdimension === 'arguments.relevancy'));
  });

  it('a type "error" the checks do not find is raised back to 10, with a note', () => {
    const s = scoreTcTurn(
      ctx([readCall]),
      reply(1, (t) => t.arguments && (t.arguments.type_compliance = 2)),
    );
    assert.equal(s.subdimensions['arguments.type'], 1);
    assert.equal(s.disagreements.find((d) => d.subdimension === 'arguments.type')?.judge, 0.2);
  });

  it("a low type score explained by the judge's own wrong-value cascade is not a disagreement", () => {
    const s = scoreTcTurn(
      ctx([readCall]),
      reply(1, (t) => t.arguments && Object.assign(t.arguments, { value_accuracy: 2, type_compliance: 0, format_compliance: 0, relevancy: 0 })),
    );
    assert.deepEqual(s.disagreements, []);
    assert.equal(s.subdimensions['arguments.type'], 0);
  });

  it("format stays the judge's call when ajv sees no error (schemas rarely declare every format)", () => {
    const s = scoreTcTurn(
      ctx([readCall]),
      reply(1, (t) => t.arguments && (t.arguments.format_compliance = 4)),
    );
    assert.equal(s.subdimensions['arguments.format'], 0.4);
    assert.deepEqual(s.disagreements, []);
  });

  it('an enum violation caps format', () => {
    const s = scoreTcTurn(ctx([{ name: 'read_file', arguments: { path: '/a', encoding: 'latin1' } }]), reply(1));
    assert.equal(s.subdimensions['arguments.format'], 0.5);
    assert.ok(s.disagreements.some((d) => d.subdimension === 'arguments.format'));
  });

  it('a tool that does not exist caps selection correctness', () => {
    const s = scoreTcTurn(ctx([listCall, { name: 'remove_everything', arguments: {} }]), reply(2));
    assert.equal(s.subdimensions['selection.correctness'], 0.5);
    const f = s.findings.find((x) => x.subdimension === 'selection.correctness');
    assert.equal(f?.callIndex, 1);
    assert.equal(f?.kind, 'wrong_tool');
    assert.ok(s.disagreements.some((d) => d.subdimension === 'selection.correctness'));
    // Its arguments cannot be checked: the judge's argument scores stand (not raised to 10 either).
    assert.equal(s.subdimensions['arguments.name'], 1);
  });
});

describe('the offline judge: exact checks only', () => {
  it('scores the six argument sub-dimensions (value from grounding) and nothing else', () => {
    const s = scoreTcTurn(ctx([listCall, readCall]), null);
    assert.equal(s.tc, null);
    // Without a grounding every value counts as grounded; viewFacts always passes one.
    assert.equal(s.dimensions.arguments, 1);
    assert.equal(s.subdimensions['usage.necessity'], null);
    assert.equal(s.subdimensions['ordering.sequence_logic'], null);
    for (const k of ['completeness', 'name', 'value', 'type', 'format', 'relevancy']) assert.equal(s.subdimensions[`arguments.${k}` as 'arguments.name'], 1, k);
    assert.equal(s.exact, 1);
  });

  it('facts set off cascades offline too', () => {
    const s = scoreTcTurn(ctx([{ name: 'list_files', arguments: { limit: 5 } }]), null);
    assert.equal(s.subdimensions['arguments.completeness'], 0);
    assert.equal(s.subdimensions['arguments.type'], 0.1);
    assert.equal(s.subdimensions['arguments.format'], 0.1);
    assert.equal(s.subdimensions['arguments.value'], 0.1);
    close(s.exact, (0 + 1 + 0.1 + 0.1 + 0.1 + 1) / 6, 'exact');
  });

  it('an ungrounded value is a value finding at its argument and sets off the wrong-value cascade', () => {
    const record = makeRecord({
      id: 'r',
      prompt: 'Read the notes in /srv.',
      calls: [listCall, { name: 'read_file', arguments: { path: '/srv/secret.txt' } }],
      outputs: [{ files: ['notes.txt'] }, { text: 'hi' }],
    });
    const built = buildView(record, 'unsupervised');
    assert.ok(built.ok);
    const facts = viewFacts(built.view, spec);
    const s = scoreTcTurn(facts.turns[0] as TurnContext, null);
    const value = s.findings.filter((f) => f.subdimension === 'arguments.value');
    assert.deepEqual(
      value.map((f) => [f.callIndex, f.param, f.kind, f.score]),
      [[1, 'path', 'ungrounded', 0]],
    );
    // Call 1: value 0 caps type, format and relevancy; call 0 is clean. Turn = mean of the two calls.
    close(s.subdimensions['arguments.value'], 0.5, 'value');
    close(s.subdimensions['arguments.type'], 0.1, 'type capped by the wrong-value cascade');
    assert.deepEqual(
      s.cascades.map((c) => c.rule),
      ['wrong-value'],
    );
  });

  it('the LLM judge is told which values are found nowhere, and which are chained', () => {
    const record = makeRecord({
      id: 'r',
      prompt: 'Read the notes in /srv.',
      calls: [listCall, { name: 'read_file', arguments: { path: '/srv/secret.txt' } }, { name: 'read_file', arguments: { path: '/srv/notes.txt' } }],
      outputs: [{ files: ['/srv/notes.txt'] }, { text: 'hi' }, { text: 'notes' }],
    });
    const built = buildView(record, 'unsupervised');
    assert.ok(built.ok);
    const text = factsText(built.view, viewFacts(built.view, spec));
    assert.match(text, /Ungrounded values .*value accuracy fails for them\):\n {4}call 1 'path' = "\/srv\/secret\.txt" \(path\)/);
    assert.match(text, /call 2 'path' = "\/srv\/notes\.txt" occurs in the output of call 0/);
    assert.doesNotMatch(text, /call 2 'path' = "\/srv\/notes\.txt" \(path\)/);
  });

  it('an LLM judge that calls an ungrounded value right is overruled; a grounded one it doubts is left to it', () => {
    const record = makeRecord({
      id: 'r',
      prompt: 'Read the notes in /srv.',
      calls: [listCall, { name: 'read_file', arguments: { path: '/srv/secret.txt' } }],
      outputs: [{ files: ['notes.txt'] }, { text: 'hi' }],
    });
    const built = buildView(record, 'unsupervised');
    assert.ok(built.ok);
    const ctx0 = viewFacts(built.view, spec).turns[0] as TurnContext;
    const overruled = scoreTcTurn(ctx0, reply(2));
    assert.ok(overruled.disagreements.some((d) => d.subdimension === 'arguments.value' && d.final < 1));
    const doubted = scoreTcTurn(
      ctx([listCall]),
      reply(1, (t) => ((t.arguments as Record<string, number>).value_accuracy = 4)),
    );
    close(doubted.subdimensions['arguments.value'], 0.4, 'a grounded value may still be wrong: the judge keeps its score');
  });
});

describe('coherence (Table 19)', () => {
  const aspect = (score: 1 | 2 | 3, manifestations: string[] = []) => ({ score, manifestations }) as CohTurnReply['logical_flow'];
  const turn = (cr: CohTurnReply['context_retention']): CohTurnReply => ({
    turn: 0,
    reasoning: 'ok',
    logical_flow: aspect(3),
    completeness: aspect(2, ['partial_answer']) as unknown as CohTurnReply['completeness'],
    conciseness: aspect(1, ['over_explains', 'too_much_fluff', 'repeats_directly']) as unknown as CohTurnReply['conciseness'],
    topic_relevance: aspect(3) as unknown as CohTurnReply['topic_relevance'],
    context_retention: cr,
  });
  it("without history: context retention left out even if sent; 1–3 normalised the paper's way (÷ 3)", () => {
    const s = scoreCohTurn(0, false, turn({ score: 1, manifestations: ['asks_again'] }));
    assert.equal(s.subdimensions['coherence.context_retention'], null);
    assert.equal(s.subdimensions['coherence.completeness'], 0.6667);
    assert.equal(s.subdimensions['coherence.conciseness'], 0.3333);
    close(s.coh, (3 + 2 + 1 + 3) / 3 / 4, 'coh');
    assert.deepEqual(s.manifestations, { completeness: ['partial_answer'], conciseness: ['over_explains', 'too_much_fluff', 'repeats_directly'] });
  });
  it('with history: context retention counts', () => {
    const s = scoreCohTurn(1, true, turn({ score: 2, manifestations: ['forgets_preferences'] }));
    close(s.coh, (3 + 2 + 1 + 3 + 2) / 3 / 5, 'coh');
    assert.deepEqual(s.manifestations.context_retention, ['forgets_preferences']);
  });
  it("the paper's Table 8 aspect means give its reported coherence 0.855", () => {
    // Table 8: logical flow 2.90, topic relevance 2.78, completeness 2.64, context retention 2.47, conciseness 2.04.
    const means = [2.9, 2.78, 2.64, 2.47, 2.04];
    const normalised = means.map((m) => m / COH_SCALE_MAX);
    close(normalised.reduce((a, b) => a + b, 0) / means.length, 0.855, 'coherence');
  });
  it('record coherence is the mean of the turns; manifestations merged', () => {
    const a = scoreCohTurn(0, false, turn(null));
    const b = scoreCohTurn(1, true, turn({ score: 3, manifestations: [] }));
    const r = aggregate([], [a, b]);
    close(r.coh, ((3 + 2 + 1 + 3) / 3 / 4 + (3 + 2 + 1 + 3 + 3) / 3 / 5) / 2, 'coh');
    close(r.subdimensions['coherence.context_retention'], 1, 'context retention only from turn 1');
    assert.deepEqual(r.manifestations.conciseness, ['over_explains', 'too_much_fluff', 'repeats_directly']);
  });
});

describe('derive or drop, never discard the reply', () => {
  const record = makeRecord({
    id: 'r',
    prompt: 'List /srv and read the report.',
    calls: [
      { name: 'list_files', arguments: { path: '/srv' } },
      { name: 'read_file', arguments: { path: '/srv/a.txt' } },
    ],
    outputs: [{ files: ['/srv/a.txt'] }, { text: 'a' }],
    turns: [
      { prompt: 'What is in /srv?', calls: [0], followup: 'One file, a.txt.' },
      { prompt: 'Read it.', calls: [1], followup: 'It says a.' },
    ],
  });
  const built = buildView(record, 'unsupervised');
  assert.ok(built.ok);
  const view = built.view;

  it("Table 19's rule: the manifestations decide the coherence score", () => {
    const cases: [score: number, manifestations: number, expected: number][] = [
      [1, 0, 3],
      [2, 0, 3],
      [3, 1, 2],
      [3, 2, 2],
      [2, 2, 2],
      [1, 1, 1], // one critical manifestation may be poor
      [2, 3, 1],
      [3, 4, 1],
    ];
    for (const [score, n, expected] of cases) assert.equal(cohScoreForManifestations(score, n), expected, `score ${score} with ${n}`);
  });

  it('a finding on a call of another turn is dropped with a note; nulls where a score is needed are noted, the rest kept', () => {
    const t0 = perfectTcTurn(0, 1);
    t0.findings = [
      { call: 1, param: 'path', subdimension: 'arguments.value', score: 2, kind: 'incorrect', reason: 'wrong file' },
      { call: 0, param: 'path', subdimension: 'arguments.value', score: 8, kind: 'other', reason: 'fine' },
    ];
    const t1 = perfectTcTurn(1, 1);
    t1.arguments = null;
    const { reply, notes } = reconcileTcReply({ turns: [t0, t1] }, view);
    assert.deepEqual(
      reply.turns[0]?.findings.map((f) => f.call),
      [0],
    );
    assert.ok(
      notes.some((n) => /^turn 0: dropped a judge finding on call 1 \(arguments\.value\), which is not a call of this turn \(its calls: 0\)$/.test(n)),
      notes.join('\n'),
    );
    assert.ok(notes.includes('turn 1: arguments not scored (the judge gave null for a turn with calls)'), notes.join('\n'));
    // The turn still scores: usage and selection; arguments is left out, not the turn.
    const facts = viewFacts(view, spec);
    const scored = scoreTcTurn(facts.turns[1] as TurnContext, reply.turns[1] ?? null);
    assert.equal(scored.dimensions.arguments, null);
    assert.equal(scored.tc, 1);
  });

  it('coherence scores that disagree with their manifestations follow them, with a note', () => {
    const raw = cohReply(2, (turn, a) =>
      turn === 1 && a === 'completeness' ? { score: 3, manifestations: ['partial_answer'] } : { score: 1, manifestations: [] },
    );
    raw.turns[1]!.context_retention = null;
    const { reply, notes } = reconcileCohReply(raw, view);
    assert.equal(reply.turns[0]?.logical_flow.score, 3);
    assert.equal(reply.turns[1]?.completeness.score, 2);
    assert.ok(notes.includes("turn 1 completeness: the judge's score 3 with partial_answer listed is 2 by Table 19's rule"), notes.join('\n'));
    assert.ok(notes.includes('turn 1: context_retention not scored (the judge gave null for a turn with history)'), notes.join('\n'));
    const s = scoreCohTurn(1, true, reply.turns[1] ?? null);
    assert.equal(s.subdimensions['coherence.context_retention'], null);
    close(s.coh, (3 + 2 + 3 + 3) / 3 / 4, 'coh without context retention');
  });
});
