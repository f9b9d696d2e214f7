/**
 * Which earlier call supplies which argument of a later call. The scenario stage uses this to
 * decide what the user must say (values nothing earlier supplies go into the prompt) and the
 * mock stage to decide where each chained value must appear (in the supplying call's output):
 * the review's "shared state dictionary across the workflow", made explicit.
 */
import { deref, typeList } from '../../checks/jsonSchemaUtil';
import type { SpecAnalysis, ToolInfo } from './toolInfo';
import { isRecord } from '../../util/isRecord';

/** Whether a tool's output can carry an extra identifier (no outputSchema, or one with a string slot or open object). */
export function canHost(info: ToolInfo): boolean {
  if (!info.hasOutputSchema) return true;
  const root = info.tool.outputSchema;
  // A part already read at this depth or shallower found no slot then (else the walk would have
  // ended): shared `$defs` are read once, not once per path through the branches.
  const readAt = new Map<unknown, number>();
  const visit = (raw: unknown, depth: number): boolean => {
    if (depth > 8 || (readAt.get(raw) ?? Infinity) <= depth) return false;
    readAt.set(raw, depth);
    const s = deref(raw, root);
    const types = typeList(s);
    if (
      types.length === 0 &&
      !isRecord(s.properties) &&
      s.items === undefined &&
      !Array.isArray(s.anyOf) &&
      !Array.isArray(s.oneOf) &&
      s.enum === undefined &&
      s.const === undefined
    )
      return true;
    if (types.includes('string') && s.enum === undefined && s.const === undefined && s.format === undefined && s.pattern === undefined) return true;
    if (types.includes('object') && s.additionalProperties !== false && s.unevaluatedProperties !== false) return true;
    if (isRecord(s.properties) && Object.values(s.properties).some((p) => visit(p, depth + 1))) return true;
    if (s.items !== undefined && visit(s.items, depth + 1)) return true;
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const alts = s[key];
      if (Array.isArray(alts) && alts.some((a) => visit(a, depth + 1))) return true;
    }
    return false;
  };
  return visit(root, 0);
}

/** The scalar values a call's arguments hold (top level and in top-level arrays). */
function argumentValues(args: Record<string, unknown> | undefined): Set<unknown> {
  return new Set(Object.values(args ?? {}).flatMap((v) => (Array.isArray(v) ? v : [v])));
}

/**
 * Whether a value (or each of an array's) is one the user states for a call before `j` other than
 * the producer `i` (an argument there that is not itself chained), and not one of the producer's.
 */
function saidForAnother(calls: readonly { arguments: Record<string, unknown> }[], earlier: readonly ChainSources[], i: number, j: number, v: unknown): boolean {
  const values = Array.isArray(v) ? v : [v];
  const own = argumentValues(calls[i]?.arguments);
  if (values.some((x) => own.has(x))) return false;
  const stated = (k: number): Set<unknown> =>
    argumentValues(Object.fromEntries(Object.entries(calls[k]?.arguments ?? {}).filter(([p]) => !earlier[k]?.has(p))));
  return values.every((x) => calls.slice(0, j).some((_, k) => k !== i && stated(k).has(x)));
}

/** For one call: the earlier call index supplying each top-level argument that is chained. */
export type ChainSources = Map<string, number>;

/**
 * For every call, which top-level reference arguments come from an earlier call's output: the
 * latest earlier call whose tool produces that parameter (see `producerScore`) and whose
 * output can carry it. A value another earlier call was given (and the producer was not) is
 * not chained: the user said it for that call, and planting it into the producer's output would
 * make that output contradict its own call (a read of issue 3330 answering "number 1580").
 */
export function chainSources(analysis: SpecAnalysis, calls: readonly { name: string; arguments: Record<string, unknown> }[]): ChainSources[] {
  const infos = calls.map((c) => analysis.byName.get(c.name));
  const all: ChainSources[] = [];
  calls.forEach((call, j) => {
    const sources: ChainSources = new Map();
    all.push(sources);
    const consumer = infos[j];
    if (!consumer) return;
    for (const p of consumer.params) {
      if (!p.isRef || !Object.hasOwn(call.arguments, p.name)) continue;
      const v = call.arguments[p.name];
      const scalar = (x: unknown): boolean => typeof x === 'string' || typeof x === 'number';
      if (!scalar(v) && !(Array.isArray(v) && v.length > 0 && v.every(scalar))) continue;
      for (let i = j - 1; i >= 0; i--) {
        const producer = infos[i];
        if (producer && analysis.producerScore(producer, consumer, p) > 0 && canHost(producer)) {
          if (!saidForAnother(calls, all, i, j, v)) sources.set(p.name, i);
          break;
        }
      }
    }
  });
  return all;
}
