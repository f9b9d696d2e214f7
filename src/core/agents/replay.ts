/**
 * Replaying one scenario to an agent: the state behind the mock MCP server. A call is answered
 * only when it is one the oracle expects next; anything else is refused with a message that says
 * what was expected, so the mock never improvises an answer.
 *
 * Matching (documented in the README, "agent-seer serve"):
 * - the tool name must be exact;
 * - arguments are compared as JSON values, key order ignored — the comparison the exact judge
 *   makes — with one tolerance: an argument the oracle sets to its schema's `default` may be left
 *   out by the agent (and one the agent sets to the default where the oracle leaves it out);
 * - the call must be one the agent can make now: an unanswered expected call of the earliest
 *   turn that has any left (a single-turn record is one turn), none of whose argument values
 *   comes from the output of an expected call not answered yet (the chained values the exact
 *   judge traces). So independent calls may come in any order, dependent ones only after what
 *   they depend on, and a later turn's calls only after the earlier turns'.
 */
import { canonicalJson } from '../harness/hash';
import type { HarnessRecord } from '../harness/format';
import { traceChainedValues } from '../judge/facts';
import type { Spec } from '../spec/model';
import { isRecord } from '../util/isRecord';

/** The answer to one `tools/call`. */
export type ReplayAnswer = { ok: true; expectedIndex: number; output: unknown } | { ok: false; message: string };

/** The `default` of each top-level parameter of a tool's input schema. */
function defaultsOf(spec: Spec, tool: string): Record<string, unknown> {
  const schema = spec.tools.find((t) => t.name === tool)?.inputSchema as { properties?: Record<string, { default?: unknown }> } | undefined;
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(schema?.properties ?? {})) if (isRecord(p) && 'default' in p) out[k] = p.default;
  return out;
}

/** Arguments with every parameter that equals its schema default removed. */
function withoutDefaults(args: unknown, defaults: Record<string, unknown>): unknown {
  if (!isRecord(args)) return args;
  return Object.fromEntries(Object.entries(args).filter(([k, v]) => !(k in defaults) || canonicalJson(v) !== canonicalJson(defaults[k])));
}

/** Whether an agent's arguments are the oracle's, as the exact checks compare them. */
export function sameArguments(spec: Spec, tool: string, expected: unknown, actual: unknown): boolean {
  const defaults = defaultsOf(spec, tool);
  return canonicalJson(withoutDefaults(expected ?? {}, defaults)) === canonicalJson(withoutDefaults(actual ?? {}, defaults));
}

/** Which turn each expected call belongs to (0 for single-turn records). */
function turnOf(record: HarnessRecord): number[] {
  const turn = record.expected_tools.map(() => 0);
  record.conversation.forEach((t, i) => {
    for (const c of t.calls) if (c >= 0 && c < turn.length) turn[c] = i;
  });
  return turn;
}

const short = (v: unknown): string => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 300 ? `${s.slice(0, 297)}…` : s;
};

/** One scenario being replayed. */
export class ScenarioReplay {
  private readonly answered: boolean[];
  private readonly turns: number[];
  /** For each expected call, the earlier calls whose outputs its arguments take values from. */
  private readonly dependsOn: number[][];

  constructor(
    readonly record: HarnessRecord,
    private readonly spec: Spec,
  ) {
    this.answered = record.expected_tools.map(() => false);
    this.turns = turnOf(record);
    this.dependsOn = record.expected_tools.map(() => []);
    const outputs = record.expected_tools.map((_, i) => record.mock_outputs[i]?.output);
    for (const c of traceChainedValues(record.expected_tools, outputs)) this.dependsOn[c.callIndex]!.push(c.fromCall);
  }

  /** Every expected call has been answered. */
  get done(): boolean {
    return this.answered.every(Boolean);
  }

  /** Expected calls the agent may make now (see the module comment). */
  private open(): number[] {
    const first = this.answered.findIndex((a) => !a);
    if (first < 0) return [];
    const turn = this.turns[first]!;
    return this.answered
      .map((a, i) => (!a && this.turns[i] === turn && (this.dependsOn[i] ?? []).every((j) => this.answered[j]) ? i : -1))
      .filter((i) => i >= 0);
  }

  /** Answers one call, or says why it is refused. */
  call(name: string, args: unknown): ReplayAnswer {
    const calls = this.record.expected_tools;
    if (!this.spec.tools.some((t) => t.name === name))
      return { ok: false, message: `unknown tool "${name}": this server has ${this.spec.tools.map((t) => t.name).join(', ')}` };
    if (this.done)
      return {
        ok: false,
        message: `scenario ${this.record.id} is complete: all ${calls.length} expected call${calls.length === 1 ? ' was' : 's were'} made; no further call is expected`,
      };
    const open = this.open();
    const hit = open.find((i) => calls[i]!.name === name && sameArguments(this.spec, name, calls[i]!.arguments, args));
    if (hit !== undefined) {
      this.answered[hit] = true;
      return { ok: true, expectedIndex: hit, output: this.record.mock_outputs[hit]?.output ?? null };
    }
    const expected = open.map((i) => `${calls[i]!.name}(${short(calls[i]!.arguments)})`).join(' or ');
    const sameName = open.filter((i) => calls[i]!.name === name);
    const why = sameName.length ? `arguments differ from the expected ones` : `"${name}" is not expected now`;
    return { ok: false, message: `${why}: expected ${expected}; got ${name}(${short(args)})` };
  }
}
