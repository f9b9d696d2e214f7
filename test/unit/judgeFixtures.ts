/**
 * Shared fixtures of the judge tests: a small file-tools spec, a record builder, and a scripted
 * judge for the fake LLM servers that reads the turn plan out of the real rendered prompt.
 */
import type { HarnessManifest, HarnessRecord } from '../../src/core/harness/format';
import { FORMAT_VERSION } from '../../src/core/harness/format';
import { specHash, toolHashes } from '../../src/core/harness/hash';
import { computeChecks } from '../../src/core/checks/recordChecks';
import type { CohReply, TcReply, TcTurnReply } from '../../src/core/judge';
import type { Spec } from '../../src/core/spec/model';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../fakes/fakeLlmServer';

/** Four file tools with strict schemas. */
export function fileSpec(): Spec {
  return {
    name: 'files',
    source: 'inline',
    invalidTools: [],
    tools: [
      {
        name: 'list_files',
        description: 'List the files of a folder.',
        inputSchema: {
          type: 'object',
          properties: { path: { type: 'string' }, limit: { type: 'integer' } },
          required: ['path'],
          additionalProperties: false,
        },
      },
      {
        name: 'read_file',
        description: 'Read a file.',
        inputSchema: {
          type: 'object',
          properties: { path: { type: 'string' }, encoding: { type: 'string', enum: ['utf8', 'base64'] } },
          required: ['path'],
        },
      },
      { name: 'delete_file', description: 'Delete a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
      {
        name: 'search_files',
        description: 'Search files by text.',
        inputSchema: { type: 'object', properties: { query: { type: 'string' }, since: { type: 'string', format: 'date' } }, required: ['query'] },
      },
    ],
  };
}

/** A valid record with its checks computed; `turns` makes it multi-turn. */
export function makeRecord(o: {
  id: string;
  prompt: string;
  calls: { name: string; arguments: Record<string, unknown> }[];
  outputs: unknown[];
  response?: string;
  turns?: { prompt: string; calls: number[]; followup: string }[];
  spec?: Spec;
}): HarnessRecord {
  const expected_tools = o.calls.map((c) => ({ ...c, explanation: `call ${c.name}` }));
  const mock_outputs = o.calls.map((c, i) => ({ name: c.name, output: o.outputs[i] ?? {}, grounding: 'low' as const }));
  const conversation = o.turns ?? [];
  return {
    formatVersion: FORMAT_VERSION,
    id: o.id,
    tier: conversation.length ? 'complex' : 'simple',
    category: 'files',
    title: o.id,
    prompt: o.prompt,
    expected_tools,
    mock_outputs,
    expected_response: o.response ?? 'Done.',
    conversation,
    novelty_reason: 'test',
    agent_followup: 'Anything else?',
    provenance: { provider: 'test', model: 'test', temperature: null, seed: null, promptVersions: {}, toolHashes: {} },
    checks: computeChecks(o.spec ?? fileSpec(), { prompt: o.prompt, expected_tools, mock_outputs, conversation }),
  };
}

/** The first user message of a request (re-asks append turns; the judged prompt stays first). */
export const promptOf = (r: FakeRequest): string => r.messages[0]?.content ?? '';
export const isTcPrompt = (text: string): boolean => text.includes('# Cascading penalties');
export const isCohPrompt = (text: string): boolean => text.includes('how coherent');

/** Calls per turn, read from the turn plan of a rendered TC prompt. */
export function turnPlan(prompt: string): number[] {
  return [...prompt.matchAll(/^- Turn (\d+): (\d+) calls?/gm)].map((m) => Number(m[2]));
}

/** Turns of a rendered coherence prompt. */
export function cohTurns(prompt: string): number {
  return [...prompt.matchAll(/^- Turn (\d+): /gm)].length;
}

/** A flawless TC turn for a turn with `n` calls. */
export function perfectTcTurn(turn: number, n: number): TcTurnReply {
  return {
    turn,
    reasoning: 'All calls fit the request.',
    usage: { necessity: 10, overuse: 10 },
    selection: { correctness: 10, specificity: 10, completeness: 10 },
    ordering: n >= 2 ? { sequence_logic: 10, dependency_handling: 10, execution_efficiency: 10 } : null,
    arguments: n >= 1 ? { completeness: 10, name_accuracy: 10, value_accuracy: 10, type_compliance: 10, format_compliance: 10, relevancy: 10 } : null,
    findings: [],
  };
}

/** A flawless TC reply for a rendered prompt. */
export function perfectTc(prompt: string): TcReply {
  return { turns: turnPlan(prompt).map((n, i) => perfectTcTurn(i, n)) };
}

/** A coherence reply, every aspect 3 unless `score` says otherwise. */
export function cohReply(
  turns: number,
  score: (turn: number, aspect: string) => { score: 1 | 2 | 3; manifestations: string[] } = () => ({ score: 3, manifestations: [] }),
): CohReply {
  return {
    turns: Array.from({ length: turns }, (_, turn) => ({
      turn,
      reasoning: 'Clear and on topic.',
      logical_flow: score(turn, 'logical_flow') as CohReply['turns'][number]['logical_flow'],
      completeness: score(turn, 'completeness') as CohReply['turns'][number]['completeness'],
      conciseness: score(turn, 'conciseness') as CohReply['turns'][number]['conciseness'],
      topic_relevance: score(turn, 'topic_relevance') as CohReply['turns'][number]['topic_relevance'],
      context_retention: turn === 0 ? null : (score(turn, 'context_retention') as NonNullable<CohReply['turns'][number]['context_retention']>),
    })),
  };
}

/**
 * Scripts a fake server as a judge: TC prompts get `tc(prompt)`, coherence prompts `coh(prompt)`;
 * both default to flawless replies shaped by the prompt's turn plan.
 */
export function scriptJudge(
  fake: FakeLlmServer,
  handlers: { tc?: (prompt: string, r: FakeRequest) => FakeReply; coh?: (prompt: string, r: FakeRequest) => FakeReply } = {},
): void {
  fake.respondWith((r) => {
    const p = promptOf(r);
    if (isTcPrompt(p)) return handlers.tc ? handlers.tc(p, r) : { json: perfectTc(p), usage: { input: 1000, output: 200 } };
    if (isCohPrompt(p)) return handlers.coh ? handlers.coh(p, r) : { json: cohReply(cohTurns(p)), usage: { input: 500, output: 100 } };
    return { status: 500, message: 'not a judge prompt' };
  });
}

/** A manifest for hand-made records (what `writeHarness` needs). */
export function makeManifest(spec: Spec, records: readonly HarnessRecord[], source?: string): HarnessManifest {
  return {
    formatVersion: FORMAT_VERSION,
    spec: { name: spec.name, ...(source ? { source } : {}), hash: specHash(spec), toolHashes: toolHashes(spec) },
    provider: 'test',
    model: 'test',
    temperature: null,
    promptVersions: {},
    seed: null,
    requested: { simple: records.length, complex: 0 },
    counts: {
      records: records.length,
      byTier: { simple: records.filter((r) => r.tier === 'simple').length, complex: records.filter((r) => r.tier === 'complex').length },
      multiCall: records.filter((r) => r.expected_tools.length >= 2).length,
      multiTurn: records.filter((r) => r.conversation.length >= 2).length,
      coverageRound: 0,
      coverage: { tools: spec.tools.length, covered: 0, ratio: 0, uncovered: [] },
      repaired: {},
      discarded: {},
      skipped: [],
    },
    tokens: { input: 0, output: 0, calls: 0 },
    timings: { startedAt: '2026-01-01T00:00:00Z' },
    status: 'complete',
    recordIds: records.map((r) => r.id),
  };
}
