/**
 * Replaying one scenario to an agent: the state behind the mock MCP server. A call is answered
 * only when it is one the oracle expects now; anything else is refused the way a real server
 * would refuse it, so the mock never improvises an answer and never hands out the answer key.
 *
 * Matching (documented in docs/cli.md, "agent-seer serve"):
 * - the tool name must be exact;
 * - arguments are compared as JSON values, key order ignored — the comparison the exact judge
 *   makes — with one tolerance: an argument the oracle sets to its schema's `default` may be left
 *   out by the agent (and one the agent sets to the default where the oracle leaves it out);
 * - the call must be one the agent can make now: an unanswered expected call of a user turn the
 *   agent has been given (`beginTurn`; without it, as over `serve` where the mock cannot see the
 *   conversation, the earliest turn that has calls left), none of whose argument values comes
 *   from the output of an expected call not answered yet. Dependencies are the data flow the
 *   user did not supply: a value the user's words state is grounded there (`groundWorkflow`), so
 *   calls that take only what the prompt says may come in any order.
 *
 * What the agent reads (the `message` of a refusal) is what a server says about its own input:
 * an unknown tool (with the tool list), the schema errors of the arguments sent, arguments that
 * are not a JSON object, or, for a valid call that is not the expected one, one neutral tool
 * error. It names no expected value, no later turn and no output of a call not made. The reason
 * in full (`detail`) is for the operator's log, and is what the agent reads only when the mock
 * was started with `revealExpected` (a debugging aid; `run` never sets it).
 */
import { canonicalJson } from '../harness/hash';
import type { HarnessRecord } from '../harness/format';
import { groundWorkflow } from '../checks/grounding';
import { validateCall } from '../checks/validateCall';
import type { Spec } from '../spec/model';
import { isRecord } from '../util/isRecord';
import type { RefusalKind } from './trajectory';

/** The answer to one `tools/call`. */
export type ReplayAnswer =
  | { ok: true; expectedIndex: number; output: unknown }
  | {
      ok: false;
      kind: RefusalKind;
      /** What the agent is told. */
      message: string;
      /** The full reason, expected values included: for the operator, never the agent (unless revealed). */
      detail: string;
      /** The expected call this one was (an ordering refusal: right call, wrong moment). */
      expectedIndex?: number;
    };

/** Options of {@link ScenarioReplay}. */
export interface ReplayOptions {
  /** Tell the agent the full reason, expected calls included (debugging a harness only). Default false. */
  revealExpected?: boolean;
}

/** What a server says of a valid call it has no answer for: the same words whatever the reason. */
export function neutralRefusal(tool: string): string {
  return `Error calling ${tool}: the request could not be completed.`;
}

/** At most this many tool names in an unknown-tool message (the rest are in tools/list). */
const TOOL_NAMES_SHOWN = 40;

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

/** The user turns of a record with the expected calls of each (one turn for a single-turn record). */
export function turnsOf(record: HarnessRecord): { prompt: string; calls: number[] }[] {
  if (record.conversation.length)
    return record.conversation.map((t) => ({ prompt: t.prompt, calls: t.calls.filter((c) => c >= 0 && c < record.expected_tools.length) }));
  return [{ prompt: record.prompt, calls: record.expected_tools.map((_, i) => i) }];
}

/** Which turn each expected call belongs to (0 for single-turn records and calls in no turn). */
function turnOf(record: HarnessRecord): number[] {
  const turn = record.expected_tools.map(() => 0);
  turnsOf(record).forEach((t, i) => {
    for (const c of t.calls) turn[c] = i;
  });
  return turn;
}

/**
 * For each expected call, the earlier expected calls whose outputs it takes a value from that the
 * user's words (up to its turn) do not state.
 */
export function dependenciesOf(record: HarnessRecord, spec?: Spec): number[][] {
  const deps: Set<number>[] = record.expected_tools.map(() => new Set<number>());
  const grounded = groundWorkflow({
    calls: record.expected_tools,
    outputs: record.expected_tools.map((_, i) => record.mock_outputs[i]?.output),
    turns: turnsOf(record),
    ...(spec ? { spec } : {}),
  });
  for (const g of grounded) if (g.source.kind === 'output' && g.source.call !== g.callIndex) deps[g.callIndex]!.add(g.source.call);
  return deps.map((s) => [...s].sort((a, b) => a - b));
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
  readonly dependsOn: number[][];
  /** The last user turn the agent has been given, when the caller knows (the built-in agent does). */
  private userTurn: number | undefined;

  constructor(
    readonly record: HarnessRecord,
    readonly spec: Spec,
    private readonly options: ReplayOptions = {},
  ) {
    this.answered = record.expected_tools.map(() => false);
    this.turns = turnOf(record);
    this.dependsOn = dependenciesOf(record, spec);
  }

  /** Every expected call has been answered. */
  get done(): boolean {
    return this.answered.every(Boolean);
  }

  /** The user turn (0-based) the agent has just been given: later turns' calls are not open before it. */
  beginTurn(turn: number): void {
    this.userTurn = turn;
  }

  /** The turn whose calls are open: the one given, or (not known) the earliest with calls left. */
  private currentTurn(): number {
    if (this.userTurn !== undefined) return this.userTurn;
    const first = this.answered.findIndex((a) => !a);
    return first < 0 ? Number.POSITIVE_INFINITY : this.turns[first]!;
  }

  /** Why expected call `i` cannot be made now (undefined: it can). */
  private blocked(i: number): 'before-turn' | 'before-source' | 'answered' | undefined {
    if (this.answered[i]) return 'answered';
    const turn = this.currentTurn();
    if (this.userTurn !== undefined ? this.turns[i]! > turn : this.turns[i] !== turn) return 'before-turn';
    if (!(this.dependsOn[i] ?? []).every((j) => this.answered[j])) return 'before-source';
    return undefined;
  }

  private refuse(kind: RefusalKind, name: string, message: string, detail: string, expectedIndex?: number): ReplayAnswer {
    return {
      ok: false,
      kind,
      message: this.options.revealExpected ? `${message} [${detail}]` : message,
      detail,
      ...(expectedIndex !== undefined ? { expectedIndex } : {}),
    };
  }

  /** Expected calls open now, as the operator's log names them. */
  private openCalls(): string {
    const calls = this.record.expected_tools;
    const open = calls.map((_, i) => i).filter((i) => this.blocked(i) === undefined);
    return open.length ? `expected ${open.map((i) => `${calls[i]!.name}(${short(calls[i]!.arguments)})`).join(' or ')}` : 'no call is expected now';
  }

  /** Answers one call, or refuses it (see the module comment). */
  call(name: string, args: unknown): ReplayAnswer {
    const calls = this.record.expected_tools;
    if (!this.spec.tools.some((t) => t.name === name)) {
      const names = this.spec.tools.map((t) => t.name);
      const shown =
        names.slice(0, TOOL_NAMES_SHOWN).join(', ') + (names.length > TOOL_NAMES_SHOWN ? `, … (${names.length - TOOL_NAMES_SHOWN} more in tools/list)` : '');
      return this.refuse('unknown-tool', name, `Unknown tool: ${name}. Available tools: ${shown}`, `no tool "${name}" in the spec`);
    }
    if (!isRecord(args))
      return this.refuse(
        'malformed-arguments',
        name,
        `Invalid arguments for ${name}: expected a JSON object`,
        `arguments are ${short(args)}; ${this.openCalls()}`,
      );
    const same = calls.map((c, i) => (c.name === name && sameArguments(this.spec, name, c.arguments, args) ? i : -1)).filter((i) => i >= 0);
    const hit = same.find((i) => this.blocked(i) === undefined);
    if (hit !== undefined) {
      this.answered[hit] = true;
      return { ok: true, expectedIndex: hit, output: this.record.mock_outputs[hit]?.output ?? null };
    }
    // The right call at the wrong moment: refused like any other, and said to the operator.
    const early = same.find((i) => this.blocked(i) !== 'answered');
    if (early !== undefined) {
      const why = this.blocked(early) as 'before-turn' | 'before-source';
      const detail =
        why === 'before-turn'
          ? `expected call ${early + 1} belongs to user turn ${this.turns[early]! + 1}, not given yet`
          : `expected call ${early + 1} takes a value from the output of call ${(this.dependsOn[early] ?? [])
              .filter((j) => !this.answered[j])
              .map((j) => j + 1)
              .join(', ')}, not made yet`;
      return this.refuse(why, name, neutralRefusal(name), detail, early);
    }
    const check = validateCall(this.spec, { name, arguments: args });
    if (!check.ok) {
      const errors = check.errors.slice(0, 5).map((e) => e.message);
      return this.refuse('invalid-arguments', name, `Invalid arguments for ${name}: ${errors.join('; ')}`, `${this.openCalls()}; got ${name}(${short(args)})`);
    }
    const detail = this.done
      ? `scenario ${this.record.id} is complete: all ${calls.length} expected calls were made`
      : `${calls.some((c, i) => c.name === name && !this.answered[i]) ? 'arguments differ' : `"${name}" is not expected now`}: ${this.openCalls()}; got ${name}(${short(args)})`;
    return this.refuse('not-expected', name, neutralRefusal(name), detail);
  }
}
