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

/** For one call: the earlier call index supplying each top-level argument that is chained. */
export type ChainSources = Map<string, number>;

/**
 * For every call, which top-level reference arguments come from an earlier call's output: the
 * latest earlier call whose tool produces that parameter (see `producerScore`) and whose
 * output can carry it.
 */
export function chainSources(analysis: SpecAnalysis, calls: readonly { name: string; arguments: Record<string, unknown> }[]): ChainSources[] {
  const infos = calls.map((c) => analysis.byName.get(c.name));
  return calls.map((call, j) => {
    const sources: ChainSources = new Map();
    const consumer = infos[j];
    if (!consumer) return sources;
    for (const p of consumer.params) {
      if (!p.isRef || !Object.hasOwn(call.arguments, p.name)) continue;
      const v = call.arguments[p.name];
      const scalar = (x: unknown): boolean => typeof x === 'string' || typeof x === 'number';
      if (!scalar(v) && !(Array.isArray(v) && v.length > 0 && v.every(scalar))) continue;
      for (let i = j - 1; i >= 0; i--) {
        const producer = infos[i];
        if (producer && analysis.producerScore(producer, consumer, p) > 0 && canHost(producer)) {
          sources.set(p.name, i);
          break;
        }
      }
    }
    return sources;
  });
}
