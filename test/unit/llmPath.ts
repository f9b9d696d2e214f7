/**
 * The LLM path against the adversarial schema-only model (test/fakes/schemaOnly.ts): the real
 * CLI (`agent-seer generate`) through the real `@google/genai` client or the OpenAI wire, with
 * or without injected faults, and what the harness it wrote says: who made the records, how many
 * of the requested scenarios came back, coverage, unknown tools, invalid arguments, unlabelled
 * integrity violations, multi-turn expansion, discards by reason, and LLM calls and tokens per
 * accepted record.
 *
 * Used by `test/unit/core/pipeline/schemaOnly.test.ts` (one fast spec per client) and by
 * `bench/llmPath.ts` (the full matrix, and the cooperative responder for the token figures).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/main';
import { loadSpecText } from '../../src/core/spec/snapshot';
import { validateCall } from '../../src/core/checks/validateCall';
import { groundWorkflow, type GroundedValue } from '../../src/core/checks/grounding';
import { startFakeGemini } from '../fakes/fakeGemini';
import { startFakeOpenAI } from '../fakes/fakeOpenAI';
import { withFaults } from '../fakes/faults';
import { schemaFreeModel, schemaOnlyModel } from '../fakes/schemaOnly';
import { createResponder, stageOf } from './pipelineResponder';
import type { FakeReply, FakeRequest } from '../fakes/fakeLlmServer';
import { specsDir } from './fixturePaths';

/** What one run measured. */
export interface LlmPathFigures {
  spec: string;
  tools: number;
  client: 'gemini' | 'openai';
  faults: boolean;
  exitCode: number;
  status: string;
  records: number;
  requested: { simple: number; complex: number };
  byTier: { simple: number; complex: number };
  /** Records with a stage written by the offline generator. */
  offlineRecords: number;
  coverage: number;
  unknownTools: number;
  invalidArguments: number;
  unlabelledIntegrity: number;
  multiCall: number;
  multiTurn: number;
  calls: number;
  tokens: number;
  callsPerRecord: number;
  tokensPerRecord: number;
  discarded: Record<string, number>;
  repaired: Record<string, number>;
  items: unknown;
  /** Per stage: requests, and estimated tokens (characters ÷ 4) of the prompts sent and of the replies. */
  stages: Record<string, { requests: number; promptTokens: number; replyTokens: number }>;
  /**
   * Argument values of the model-made records (no stage by the offline generator) and how many
   * are grounded (by the user, an earlier output or the schema), in the single-turn view (the
   * request with every call) and in the conversation view (each call sees its turn and earlier
   * ones; single-turn records as they are), with up to five values grounded nowhere.
   */
  grounding: { single: { values: number; grounded: number }; conversation: { values: number; grounded: number }; ungrounded: string[] };
  /** Faults injected, by kind (with --faults). */
  injected?: Record<string, number>;
}

/** Runs `agent-seer generate` once and measures the harness it wrote. */
export async function measureLlmPath(
  specName: string,
  options: { client: 'gemini' | 'openai'; faults: boolean; smart?: boolean; free?: number; simple: number; complex: number },
): Promise<LlmPathFigures> {
  const specFile = join(specsDir, specName);
  const load = loadSpecText(readFileSync(specFile, 'utf8'), specFile);
  if (!load.ok) throw new Error(`cannot load ${specFile}`);
  const spec = load.spec;
  const base = options.smart ? createResponder({ spec }).respond : options.free !== undefined ? schemaFreeModel(options.free) : schemaOnlyModel;
  const faults = options.faults ? withFaults(base) : undefined;
  const inner = faults?.respond ?? base;
  const stages: LlmPathFigures['stages'] = {};
  const respond = async (req: FakeRequest): Promise<FakeReply> => {
    const reply = await inner(req);
    const st = (stages[stageOf(req)] ??= { requests: 0, promptTokens: 0, replyTokens: 0 });
    st.requests++;
    st.promptTokens += Math.ceil(req.messages.reduce((a, m) => a + m.content.length, 0) / 4);
    st.replyTokens += Math.ceil(('json' in reply ? JSON.stringify(reply.json) : 'text' in reply ? reply.text : '').length / 4);
    return reply;
  };
  const fake = options.client === 'gemini' ? await startFakeGemini() : await startFakeOpenAI();
  fake.respondWith(respond);
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-llmpath-'));
  const out: string[] = [];
  const err: string[] = [];
  try {
    const argv = ['generate', specFile, '--provider', options.client, ...(options.client === 'openai' ? ['--model', 'm'] : [])];
    argv.push('--base-url', fake.url, '--simple', String(options.simple), '--complex', String(options.complex), '--out', join(dir, 'out'), '--json');
    const exitCode = await run(argv, {
      out: (s) => out.push(s),
      err: (s) => err.push(s),
      cwd: dir,
      env: { GEMINI_API_KEY: 'k', OPENAI_API_KEY: 'k' },
    });
    const summary = JSON.parse(out.join('\n') || '{}') as {
      status?: string;
      llm?: { calls: number; inputTokens: number; outputTokens: number };
    };
    const harness = join(dir, 'out');
    const manifest = JSON.parse(readFileSync(join(harness, 'manifest.json'), 'utf8')) as {
      counts: {
        records: number;
        byTier: { simple: number; complex: number };
        multiCall: number;
        multiTurn: number;
        coverage: { ratio: number };
        repaired: Record<string, number>;
        discarded: Record<string, number>;
      };
      requested: { simple: number; complex: number };
      items?: { offlineRecords?: number };
    };
    const files = readdirSync(join(harness, 'records')).filter((f) => f.endsWith('.json'));
    let unknownTools = 0;
    let invalidArguments = 0;
    let unlabelledIntegrity = 0;
    const grounding: LlmPathFigures['grounding'] = { single: { values: 0, grounded: 0 }, conversation: { values: 0, grounded: 0 }, ungrounded: [] };
    for (const f of files) {
      const rec = JSON.parse(readFileSync(join(harness, 'records', f), 'utf8')) as {
        id: string;
        prompt: string;
        expected_tools: { name: string; arguments: Record<string, unknown> }[];
        mock_outputs: { output: unknown }[];
        conversation: { prompt: string; calls: number[] }[];
        checks: { integrityViolations: unknown[] };
        provenance: { integrity?: unknown; stageProviders?: Record<string, string> };
      };
      if (!Object.values(rec.provenance.stageProviders ?? {}).includes('offline')) {
        const calls = rec.expected_tools;
        const outputs = calls.map((_, i) => rec.mock_outputs[i]?.output);
        const single = [{ prompt: rec.prompt, calls: calls.map((_, i) => i) }];
        const tally = (into: { values: number; grounded: number }, values: GroundedValue[], note: boolean): void => {
          into.values += values.length;
          for (const g of values) {
            if (g.source.kind !== 'none') into.grounded++;
            else if (note && grounding.ungrounded.length < 5)
              grounding.ungrounded.push(`${rec.id} call ${g.callIndex} ${g.param}=${JSON.stringify(g.value)} (${g.class})`);
          }
        };
        tally(grounding.single, groundWorkflow({ calls, outputs, turns: single, spec }), true);
        tally(grounding.conversation, groundWorkflow({ calls, outputs, turns: rec.conversation.length ? rec.conversation : single, spec }), false);
      }
      for (const c of rec.expected_tools) {
        const v = validateCall(spec, { name: c.name, arguments: c.arguments });
        if (v.errors.some((e) => e.kind === 'unknown-tool')) unknownTools++;
        else if (v.errors.length) invalidArguments++;
      }
      if (rec.checks.integrityViolations.length && rec.provenance.integrity === undefined) unlabelledIntegrity++;
    }
    const calls = summary.llm?.calls ?? 0;
    const tokens = (summary.llm?.inputTokens ?? 0) + (summary.llm?.outputTokens ?? 0);
    const records = manifest.counts.records;
    return {
      spec: specName,
      tools: spec.tools.length,
      client: options.client,
      faults: options.faults,
      exitCode,
      status: summary.status ?? '?',
      records,
      requested: manifest.requested,
      byTier: manifest.counts.byTier,
      offlineRecords: manifest.items?.offlineRecords ?? 0,
      coverage: manifest.counts.coverage.ratio,
      unknownTools,
      invalidArguments,
      unlabelledIntegrity,
      multiCall: manifest.counts.multiCall,
      multiTurn: manifest.counts.multiTurn,
      calls,
      tokens,
      callsPerRecord: records ? calls / records : 0,
      tokensPerRecord: records ? tokens / records : 0,
      discarded: manifest.counts.discarded,
      repaired: manifest.counts.repaired,
      items: (manifest as { items?: unknown }).items,
      stages,
      grounding,
      ...(faults ? { injected: faults.injected } : {}),
    };
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
