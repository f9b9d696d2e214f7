/**
 * What a program can decide about tool calls, decided before any judge is asked: the tool
 * exists, required parameters are present, names match the schema, values have the declared
 * types, enums/formats/patterns hold, no parameter is extra (all from `validateCall`, i.e. ajv
 * against the spec); and where each argument value comes from (`checks/grounding.ts`): an ID,
 * path, name, date or amount found neither in the user's words, nor in an earlier output, nor in
 * its schema is a value-accuracy failure. Plus, in oracle mode, how the agent's calls line up
 * with the reference.
 *
 * These facts go to the LLM judge as text (`render.ts`) and are enforced on its reply
 * (`scoreTcTurn` in `aggregate.ts`); the offline judge scores from them alone.
 */
import type { CallError, DeterminacyFinding } from '../harness/format';
import { canonicalJson } from '../harness/hash';
import { appearsIn, textLeaves } from '../checks/integrity';
import { objectShape } from '../checks/jsonSchemaUtil';
import { compileSchema, findTool, nearestName, validateCall } from '../checks/validateCall';
import { FINDING_CLASSES, isUngroundedFinding, type GroundedValue } from '../checks/grounding';
import type { Spec } from '../spec/model';
import type { ArgumentSub } from '../vocabulary';
import { isRecord } from '../util/isRecord';

/** A tool call as the judge sees it (an expected call or an agent's call). */
export interface CallLike {
  name: string;
  arguments: unknown;
}

/**
 * The argument sub-dimensions exact checks decide: all six. Value accuracy is decided in one
 * direction only (a value found nowhere is wrong; a grounded value may still be the wrong one,
 * which needs judgment).
 */
export const EXACT_ARGUMENT_SUBS = ['completeness', 'name', 'value', 'type', 'format', 'relevancy'] as const satisfies readonly ArgumentSub[];
/** One argument sub-dimension exact checks decide. */
export type ExactArgumentSub = (typeof EXACT_ARGUMENT_SUBS)[number];

/** A parameter passed under a name the schema lacks while a close declared name went unused. */
export interface MisnamedParam {
  param: string;
  /** The declared name it most likely meant. */
  suggestion: string;
}

/** The exact facts of one call. */
export interface CallFacts {
  /** Index of the call in the list given to `exactFacts`. */
  callIndex: number;
  name: string;
  /**
   * `known`: checked against the tool's schema. `unknown`: no such tool (nothing about its
   * arguments can be checked). `uncheckable`: the tool's schema does not compile.
   */
  tool: 'known' | 'unknown' | 'uncheckable';
  /** Every error `validateCall` reported. */
  errors: CallError[];
  /** Top-level parameter names the call passes. */
  provided: string[];
  /** Required top-level parameters of the tool. */
  required: string[];
  /** Top-level parameters (or parents of nested ones) with a missing required value. */
  missingRequired: string[];
  misnamed: MisnamedParam[];
  /** Top-level parameters (or parents of nested ones) the schema does not define and that are not misnamings. */
  extra: string[];
  /** Top-level parameters with a type error; `(arguments)` when the arguments are not an object. */
  typeErrors: string[];
  /** Top-level parameters with an enum, format, pattern or range error. */
  formatErrors: string[];
  /** Where each argument value of the call comes from (empty when no grounding was given). */
  values: GroundedValue[];
  /** The values that are findings: ids, paths, names, dates or amounts found nowhere. */
  ungrounded: GroundedValue[];
  /**
   * Values a fair test could not ask for (`checks/determinacy.ts`): judged on records only (an
   * agent's calls are not the test); a value-accuracy failure like an ungrounded one.
   */
  undetermined: DeterminacyFinding[];
  /** Exact score per decidable argument sub-dimension, 0–10 (null when the tool is not `known`). */
  scores: Record<ExactArgumentSub, number> | null;
}

const top = (param: string | undefined): string => (param ? (param.split('.')[0] ?? param) : '(arguments)');
const uniq = (xs: readonly string[]): string[] => [...new Set(xs)];
/** 10 × the share of units without a failure; 10 when there are no units. */
const share = (failed: number, total: number): number => (total <= 0 ? 10 : Math.max(0, 10 * (1 - failed / total)));

/**
 * The exact facts of each call against the spec. Pure apart from ajv's compile cache.
 *
 * Error kinds map to sub-dimensions as Table 18 defines them: `missing-required` (and an unmet
 * `anyOf`/`oneOf` at the root, which is how schemas say "one of these is required") →
 * completeness; `unknown-param` with a close unused declared name → name accuracy, otherwise →
 * relevancy; `type` → type compliance; `enum`, `format` and other value constraints (pattern,
 * range, length) → format compliance. Each decidable sub-dimension is scored 10 × the share of
 * the call's parameters without that failure (required parameters for completeness); value
 * accuracy 10 × the share of its grounding-checked values (ids, paths, names, dates, amounts) that
 * are grounded. `grounding` is `groundWorkflow`'s result over the same calls; without it every
 * value counts as grounded.
 */
export function exactFacts(
  spec: Spec,
  calls: readonly CallLike[],
  grounding: readonly GroundedValue[] = [],
  determinacy: readonly DeterminacyFinding[] = [],
): CallFacts[] {
  return calls.map((call, callIndex) => {
    const values = grounding.filter((g) => g.callIndex === callIndex);
    const base: CallFacts = {
      callIndex,
      name: call.name,
      tool: 'known',
      errors: [],
      provided: isRecord(call.arguments) ? Object.keys(call.arguments) : [],
      required: [],
      missingRequired: [],
      misnamed: [],
      extra: [],
      typeErrors: [],
      formatErrors: [],
      values,
      ungrounded: values.filter(isUngroundedFinding),
      undetermined: determinacy.filter((d) => d.callIndex === callIndex),
      scores: null,
    };
    const tool = findTool(spec, call.name);
    const check = validateCall(spec, call);
    base.errors = check.errors;
    if (!tool) return { ...base, tool: 'unknown' };
    if (!compileSchema(tool.inputSchema ?? {}).ok) return { ...base, tool: 'uncheckable' };
    const shape = objectShape(tool.inputSchema, tool.inputSchema);
    base.required = [...shape.required];
    const declared = Object.keys(shape.properties);
    const unusedDeclared = declared.filter((d) => !base.provided.includes(d));
    const missing: string[] = [];
    const misnamed: MisnamedParam[] = [];
    const extra: string[] = [];
    const typeErrors: string[] = [];
    const formatErrors: string[] = [];
    for (const e of check.errors) {
      switch (e.kind) {
        case 'missing-required':
          missing.push(top(e.param));
          break;
        case 'unknown-param': {
          const isTop = e.param !== undefined && !e.param.includes('.');
          const near = isTop ? nearestName(e.param as string, unusedDeclared) : undefined;
          if (isTop && near) misnamed.push({ param: e.param as string, suggestion: near });
          else extra.push(top(e.param));
          break;
        }
        case 'type':
          typeErrors.push(top(e.param));
          break;
        case 'enum':
        case 'format':
          formatErrors.push(top(e.param));
          break;
        default:
          // A failed alternative at the root is a "one of these parameters is required" rule.
          if (e.param === undefined) missing.push('(arguments)');
          else formatErrors.push(top(e.param));
      }
    }
    const facts: CallFacts = {
      ...base,
      missingRequired: uniq(missing),
      misnamed: misnamed.filter((m, i) => misnamed.findIndex((x) => x.param === m.param) === i),
      extra: uniq(extra),
      typeErrors: uniq(typeErrors),
      formatErrors: uniq(formatErrors),
    };
    const provided = facts.provided.length;
    const notObject = !isRecord(call.arguments);
    facts.scores = {
      completeness: share(facts.missingRequired.length, uniq([...facts.required, ...facts.missingRequired]).length),
      name: share(facts.misnamed.length, provided),
      value: share(facts.ungrounded.length + facts.undetermined.length, valueUnits(values, facts.undetermined)),
      type: notObject ? 0 : share(facts.typeErrors.length, provided),
      format: share(facts.formatErrors.length, provided),
      relevancy: share(facts.extra.length, provided),
    };
    return facts;
  });
}

/** The values value accuracy is scored over: the finding classes, plus any other value with a determinacy finding. */
function valueUnits(values: readonly GroundedValue[], undetermined: readonly DeterminacyFinding[]): number {
  const units = new Set(values.filter((g) => FINDING_CLASSES.has(g.class)).map((g) => g.param));
  for (const d of undetermined) units.add(d.param);
  return Math.max(units.size, values.filter((g) => FINDING_CLASSES.has(g.class)).length);
}

/** Whether a call's facts show a failure of one exact sub-dimension. */
export function callFails(f: CallFacts, sub: ExactArgumentSub): boolean {
  switch (sub) {
    case 'completeness':
      return f.missingRequired.length > 0;
    case 'name':
      return f.misnamed.length > 0;
    case 'value':
      return f.ungrounded.length > 0 || f.undetermined.length > 0;
    case 'type':
      return f.typeErrors.length > 0;
    case 'format':
      return f.formatErrors.length > 0;
    case 'relevancy':
      return f.extra.length > 0;
  }
}

/** Exact comparison of an agent's turn with the reference's (oracle mode). */
export interface OracleAlignment {
  /** Reference call ↔ agent call pairs of the same tool, with argument differences. */
  pairs: { expected: number; actual: number; missing: string[]; extra: string[]; different: { param: string; expected: unknown; actual: unknown }[] }[];
  /** Reference calls (indices into the reference) the agent never made. */
  unmatchedExpected: number[];
  /** Agent calls (indices into the trajectory) the reference does not make. */
  unmatchedActual: number[];
}

/**
 * Lines the agent's calls up with the reference's, by tool name in order (each reference call
 * takes the first unused agent call of the same tool), and diffs the top-level arguments of
 * each pair. Indices are the global ones of each list.
 */
export function alignWithReference(
  expected: readonly { index: number; call: CallLike }[],
  actual: readonly { index: number; call: CallLike }[],
): OracleAlignment {
  const used = new Set<number>();
  const out: OracleAlignment = { pairs: [], unmatchedExpected: [], unmatchedActual: [] };
  for (const e of expected) {
    const a = actual.find((x) => !used.has(x.index) && x.call.name === e.call.name);
    if (!a) {
      out.unmatchedExpected.push(e.index);
      continue;
    }
    used.add(a.index);
    const ea = isRecord(e.call.arguments) ? e.call.arguments : {};
    const aa = isRecord(a.call.arguments) ? a.call.arguments : {};
    out.pairs.push({
      expected: e.index,
      actual: a.index,
      missing: Object.keys(ea).filter((k) => !Object.hasOwn(aa, k)),
      extra: Object.keys(aa).filter((k) => !Object.hasOwn(ea, k)),
      different: Object.keys(ea)
        .filter((k) => Object.hasOwn(aa, k) && canonicalJson(ea[k]) !== canonicalJson(aa[k]))
        .map((k) => ({ param: k, expected: ea[k], actual: aa[k] })),
    });
  }
  out.unmatchedActual = actual.filter((a) => !used.has(a.index)).map((a) => a.index);
  return out;
}

/** An argument value that also occurs in an earlier call's output. */
export interface ChainedValue {
  callIndex: number;
  /** Dotted path of the argument. */
  param: string;
  value: string | number;
  /** The earliest earlier call whose output contains it. */
  fromCall: number;
}

/** Scalar leaves of an arguments object with dotted paths. */
export function argumentLeaves(args: unknown, path: string[] = [], out: { param: string; value: unknown }[] = []): { param: string; value: unknown }[] {
  if (Array.isArray(args)) args.forEach((v, i) => argumentLeaves(v, [...path, String(i)], out));
  else if (isRecord(args)) for (const [k, v] of Object.entries(args)) argumentLeaves(v, [...path, k], out);
  else if (path.length) out.push({ param: path.join('.'), value: args });
  return out;
}

/**
 * Whether a value is distinctive enough that finding it in an output means it came from there:
 * strings of 3+ characters, numbers of two or more digits (a `1` or `5` occurs everywhere).
 */
function traceable(v: unknown): v is string | number {
  if (typeof v === 'string') return v.trim().length >= 3 && v.length <= 512;
  if (typeof v === 'number') return Number.isFinite(v) && (Math.abs(v) >= 10 || !Number.isInteger(v));
  return false;
}

/**
 * The argument values of each call that occur in an earlier call's output (`outputs[j]` for
 * j < i; undefined outputs are skipped). These are chained values: grounded even though the
 * user never typed them.
 */
export function traceChainedValues(calls: readonly CallLike[], outputs: readonly unknown[]): ChainedValue[] {
  const leaves = outputs.map((o) => (o === undefined ? [] : textLeaves(o)));
  const out: ChainedValue[] = [];
  calls.forEach((call, i) => {
    for (const { param, value } of argumentLeaves(call.arguments)) {
      if (!traceable(value)) continue;
      for (let j = 0; j < i; j++) {
        if (appearsIn(value, leaves[j] ?? [], [])) {
          out.push({ callIndex: i, param, value, fromCall: j });
          break;
        }
      }
    }
  });
  return out;
}

/** The value at a dotted (or `a[0].b`) path of an arguments object; undefined when absent. */
export function valueAtPath(args: unknown, path: string): unknown {
  let node: unknown = args;
  for (const part of path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean)) {
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isRecord(node)) node = Object.hasOwn(node, part) ? node[part] : undefined;
    else return undefined;
  }
  return node;
}
