/**
 * Harnesses with judgments for the report tests: offline harnesses of real fixture specs, scored
 * by a deterministic synthetic judge that writes what the real judge stores (a StoredJudgment:
 * per-turn dimensions, `arguments.*` and `coherence.*` sub-scores in 0–1, manifestations by
 * aspect, cascades applied). Two synthetic judges share per-record draws plus judge-specific
 * noise, so they agree the way two real judges do (correlated, with an offset on coherence).
 *
 * The one test here checks that the synthetic judgments have the real judge's stored shape, so
 * the report tests exercise what a real harness contains.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HarnessManifest, HarnessRecord, Judgment } from '../../../../src/core/harness/format';
import { writeHarness } from '../../../../src/core/harness/store';
import { StoredJudgment } from '../../../../src/core/judge';
import { COH_MANIFESTATIONS, COH_SCALE_MAX } from '../../../../src/core/vocabulary';
import { generateOffline, offlineManifest } from '../../../../src/core/pipeline/offline';
import { seededRandom } from '../../../../src/core/report/stats';
import type { Spec } from '../../../../src/core/spec/model';
import { loadFixtureSpec } from '../../fixturePaths';

/** Ids of the two synthetic judges. */
export const JUDGE_A = 'synthetic:judge-a';
export const JUDGE_B = 'synthetic:judge-b';

/** Text that must never run or break a page (spec and LLM text are data). */
export const HOSTILE = '</script><img src=x onerror=alert(1)>';

function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const r4 = (x: number): number => Math.round(x * 10_000) / 10_000;
const avg = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const avgOrNull = (xs: readonly (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? r4(avg(v)) : null;
};

/** Calls of each turn of a view: the conversation's split, or every call in one turn (the single-turn task). */
export function turnsOf(record: HarnessRecord, view: 'single-turn' | 'multi-turn' = 'multi-turn'): number[][] {
  return record.conversation.length && view === 'multi-turn' ? record.conversation.map((t) => t.calls) : [record.expected_tools.map((_, i) => i)];
}

/**
 * A deterministic judgment of a record as a StoredJudgment, shaped as the real judge stores it:
 * the single-turn view at the top and, for a record with a conversation, the conversation view
 * under `conversation`. `shift` lowers every coherence aspect (a stricter judge); `noise`
 * perturbs scores per judge.
 */
export function syntheticJudgment(record: HarnessRecord, judgeId: string, options: { shift?: number; noise?: number } = {}): Judgment {
  const single = viewJudgment(record, judgeId, options, 'single-turn');
  return record.conversation.length >= 2 ? { ...single, conversation: viewJudgment(record, judgeId, options, 'multi-turn') } : single;
}

function viewJudgment(record: HarnessRecord, judgeId: string, options: { shift?: number; noise?: number }, view: 'single-turn' | 'multi-turn'): StoredJudgment {
  const key = view === 'single-turn' ? record.id : `${record.id}\u241fconversation`;
  const shared = seededRandom(hash32(`shared\u241f${key}`));
  const own = seededRandom(hash32(`${judgeId}\u241f${key}`));
  const noise = options.noise ?? 0;
  const jitter = (x: number) => Math.min(10, Math.max(0, x + (own() - 0.5) * 2 * noise));
  const complex = record.tier === 'complex';
  const turns: StoredJudgment['turns'] = [];
  const manifestations: Record<string, string[]> = {};
  turns.length = 0;
  turnsOf(record, view).forEach((calls, turn) => {
    // Raw 0–10 sub-scores: value accuracy is the common failure (the paper's Table 14).
    const valueOk = shared() < (complex ? 0.35 : 0.55);
    const nameWrong = shared() < 0.05;
    const args = {
      completeness: shared() < 0.92 ? 10 : 6,
      name: nameWrong ? 1 : 10,
      value: valueOk ? 10 : jitter(1 + shared() * 7),
      type: shared() < 0.93 ? 10 : 7,
      format: shared() < 0.9 ? 10 : jitter(6),
      relevancy: shared() < 0.9 ? 10 : 7,
    };
    // Cascades (Table 18's footnote): a wrong name zeroes value, type and format.
    if (nameWrong) args.value = args.type = args.format = 0;
    const sel = [shared() < 0.75 ? 10 : jitter(2 + shared() * 6), shared() < 0.9 ? 10 : 6, shared() < 0.8 ? 10 : jitter(4)];
    const ord = calls.length >= 2 ? [shared() < 0.75 ? 10 : jitter(4), 10, shared() < 0.9 ? 10 : 7] : null;
    const usage = shared() < 0.03 ? 0 : 10;
    const subdimensions: Record<string, number | null> = {
      'usage.necessity': usage / 10,
      'usage.overuse': 1,
      'selection.correctness': r4((sel[0] ?? 0) / 10),
      'selection.specificity': r4((sel[1] ?? 0) / 10),
      'selection.completeness': r4((sel[2] ?? 0) / 10),
      'ordering.sequence_logic': ord ? r4((ord[0] ?? 0) / 10) : null,
      'ordering.dependency_handling': ord ? r4((ord[1] ?? 0) / 10) : null,
      'ordering.efficiency': ord ? r4((ord[2] ?? 0) / 10) : null,
      'arguments.completeness': args.completeness / 10,
      'arguments.name': args.name / 10,
      'arguments.value': r4(args.value / 10),
      'arguments.type': args.type / 10,
      'arguments.format': r4(args.format / 10),
      'arguments.relevancy': args.relevancy / 10,
    };
    const dimensions: Record<string, number | null> = {
      usage: usage / 10,
      selection: r4(avg(sel) / 10),
      ordering: ord ? r4(avg(ord) / 10) : null,
      arguments: r4(avg(Object.values(args)) / 10),
    };
    const tc = r4(avg(Object.values(dimensions).filter((v): v is number => v !== null)));
    // Coherence aspects on 1–3; the first turn has no history to retain.
    const turnManif: Record<string, string[]> = {};
    const aspectScores: Record<string, number | null> = {};
    for (const [aspect, codes] of Object.entries(COH_MANIFESTATIONS)) {
      if (aspect === 'context_retention' && turn === 0) {
        aspectScores[`coherence.${aspect}`] = null;
        continue;
      }
      const u = shared() - (options.shift ?? 0) * own();
      const raw = u < 0.15 ? 1 : u < 0.45 ? 2 : 3;
      aspectScores[`coherence.${aspect}`] = raw / COH_SCALE_MAX; // the judge's normalisation (the paper's ÷ 3)
      if (raw < 3) {
        const picked = [codes[Math.floor(shared() * codes.length)] as string];
        if (raw === 1) picked.push(codes[Math.floor(shared() * codes.length)] as string);
        turnManif[aspect] = [...new Set(picked)];
        manifestations[aspect] = [...new Set([...(manifestations[aspect] ?? []), ...picked])];
      }
    }
    const cohValues = Object.values(aspectScores).filter((v): v is number => v !== null);
    turns.push({
      turn,
      calls,
      tc,
      coh: r4(avg(cohValues)),
      dimensions,
      subdimensions: { ...subdimensions, ...aspectScores },
      cascades: nameWrong ? [{ rule: 'wrong-name', capped: [{ sub: 'value', from: 5, to: 0 }] }] : [],
      manifestations: turnManif,
    });
  });
  const keys = Object.keys(turns[0]?.subdimensions ?? {});
  const judgment: StoredJudgment = {
    tc: avgOrNull(turns.map((t) => t.tc)),
    coh: avgOrNull(turns.map((t) => t.coh)),
    dimensions: Object.fromEntries(['usage', 'selection', 'ordering', 'arguments'].map((d) => [d, avgOrNull(turns.map((t) => t.dimensions[d] ?? null))])),
    subdimensions: Object.fromEntries(keys.map((k) => [k, avgOrNull(turns.map((t) => t.subdimensions[k] ?? null))])),
    notes: [`synthetic judge ${judgeId}`],
    judge: {
      id: judgeId,
      provider: 'synthetic',
      model: judgeId,
      temperature: 0,
      mode: 'unsupervised',
      view,
      promptVersions: {},
    },
    inputHash: hash32(`${judgeId}${record.id}`).toString(16),
    status: { tc: 'scored', coh: 'scored' },
    exact: null,
    turns,
    findings: [],
    disagreements: [],
    manifestations,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  return judgment;
}

/** A harness written to a temp folder: its folder, manifest, judged records and spec. */
export interface JudgedHarness {
  dir: string;
  manifest: HarnessManifest;
  records: HarnessRecord[];
  spec: Spec;
}

/**
 * Generates an offline harness of a fixture spec and judges it with both synthetic judges
 * (judge B is stricter on coherence and skips every seventh record; one record's TC failed
 * under judge A). `name` renames the server (e.g. to a hostile string).
 */
export async function judgedHarness(
  specFile: string,
  options: { seed?: number; simple?: number; complex?: number; name?: string; category?: string } = {},
): Promise<JudgedHarness> {
  const spec = loadFixtureSpec(specFile);
  const gen = { seed: options.seed ?? 5, simple: options.simple ?? 8, complex: options.complex ?? 6 };
  const result = generateOffline(spec, gen);
  const manifest = offlineManifest(spec, gen, result, { startedAt: '2026-06-01T09:00:00.000Z', finishedAt: '2026-06-01T09:00:01.000Z', durationMs: 1000 });
  if (options.name) manifest.spec.name = options.name;
  const records = result.records.map((r, i) => {
    const a = syntheticJudgment(r, JUDGE_A, { noise: 0.5 });
    if (i === 2) {
      // A judge call that failed: scores null, a note says why.
      a.tc = null;
      a.notes.push('tool-calling judge failed after 3 tries');
    }
    const judgments: Record<string, Judgment> = { [JUDGE_A]: a };
    if (i % 7 !== 6) judgments[JUDGE_B] = syntheticJudgment(r, JUDGE_B, { noise: 1.5, shift: 0.3 });
    return { ...r, category: i === 0 && options.category ? options.category : r.category, judgments };
  });
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-report-'));
  await writeHarness(dir, manifest, records);
  return { dir, manifest, records, spec };
}

// Runs only as its own test file, not again in every file that imports the helpers.
if (require.main === module)
  test('synthetic judgments have the stored shape of the real judge', () => {
    const spec = loadFixtureSpec('filesystem.json');
    const { records } = generateOffline(spec, { seed: 2, simple: 4, complex: 4 });
    assert.ok(
      records.some((r) => r.conversation.length >= 2),
      'a multi-turn record is exercised',
    );
    for (const r of records) {
      const stored = StoredJudgment.parse(syntheticJudgment(r, JUDGE_A));
      assert.equal(stored.turns.length, 1, 'the single-turn view');
      assert.equal(stored.conversation?.turns.length, r.conversation.length >= 2 ? r.conversation.length : undefined);
      for (const j of [stored, ...(stored.conversation ? [stored.conversation] : [])]) {
        for (const [k, v] of Object.entries(j.subdimensions)) if (v !== null) assert.ok(v >= 0 && v <= 1, `${k} in 0–1`);
        assert.ok(j.tc !== null && j.tc >= 0 && j.tc <= 1);
      }
    }
  });
