/**
 * What a scenario prompt says about each tool. Two levels:
 * - **full**: the interpretation (what it does, what it is for) plus a parameter signature
 *   derived from the inputSchema (names, types, allowed values, formats, bounds, required
 *   marks, one level of nesting), so the model can write arguments that validate;
 * - **compact**: one line of purpose and the parameter names with types, for prompts that list
 *   tools from several groups.
 * Every part is clipped to a fixed length, so a summary's size is bounded before the
 * interpretation exists: grouping can plan prompts that stay within the token budget while the
 * interpretations are still being generated.
 */
import type { Tool } from '../../spec/model';
import { deref, objectShape, typeList, type SchemaNode } from '../../checks/jsonSchemaUtil';
import type { ToolInterpretation } from '../schemas';
import { isRecord } from '../../util/isRecord';

import { estimateTokens } from '../../util/estimateTokens';

// The one rough token count lives in util/; re-exported for the stages that import it from here.
export { estimateTokens };

/** Clip lengths of the interpretation fields in a full summary. */
const CLIP = { does: 320, usedFor: 200, needs: 240, param: 110 } as const;
/** Most parameters listed per tool (required ones first); the rest are counted, not shown. */
const MAX_PARAMS = 24;
/** Most enum values shown. */
const MAX_ENUM = 10;

/** Collapses whitespace and cuts at `max` characters with an ellipsis. */
export function clipText(text: string | undefined, max: number): string {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`;
}

function firstSentenceOf(text: string | undefined, max: number): string {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(t);
  return clipText(m?.[1] ?? t, max);
}

/** A short type phrase for a schema node: `string`, `integer 1..100`, `"a" | "b"`, `array of string`. */
export function typePhrase(raw: unknown, root: unknown, depth = 0): string {
  const s = deref(raw, root);
  if (Array.isArray(s.enum)) {
    const shown = s.enum.slice(0, MAX_ENUM).map((v) => JSON.stringify(v));
    return `one of ${shown.join(' | ')}${s.enum.length > MAX_ENUM ? ` | … (${s.enum.length} values)` : ''}`;
  }
  if (s.const !== undefined) return `exactly ${JSON.stringify(s.const)}`;
  const alts = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as unknown[] | undefined;
  if (alts) {
    const phrases = [...new Set(alts.filter((a) => !(isRecord(a) && a.type === 'null')).map((a) => typePhrase(a, root, depth + 1)))];
    const nullable = alts.some((a) => isRecord(a) && a.type === 'null');
    return `${phrases.join(' or ') || 'any'}${nullable ? ' or null' : ''}`;
  }
  const types = typeList(s).filter((t) => t !== 'null');
  const type = types.join(' or ') || (isRecord(s.properties) ? 'object' : s.items !== undefined ? 'array' : 'any');
  const extras: string[] = [];
  if (typeof s.format === 'string') extras.push(s.format);
  if (typeof s.pattern === 'string' && s.pattern.length <= 60) extras.push(`pattern ${s.pattern}`);
  const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? `>${s.exclusiveMinimum}` : undefined;
  const hi = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? `<${s.exclusiveMaximum}` : undefined;
  if (lo !== undefined || hi !== undefined) extras.push(`${lo ?? ''}..${hi ?? ''}`);
  if (typeof s.minLength === 'number' || typeof s.maxLength === 'number') extras.push(`length ${s.minLength ?? 0}..${s.maxLength ?? ''}`);
  let phrase = extras.length ? `${type}, ${extras.join(', ')}` : type;
  if (type === 'array' && s.items !== undefined && depth < 2) phrase = `array of ${typePhrase(s.items, root, depth + 1)}`;
  if (type === 'object' && isRecord(s.properties) && depth < 2) {
    const req = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const inner = Object.entries(s.properties)
      .slice(0, 8)
      .map(([k, v]) => `${k}${req.has(k) ? '*' : ''}: ${typePhrase(v, root, depth + 1)}`);
    const more = Object.keys(s.properties).length > 8 ? ', …' : '';
    phrase = `object {${inner.join('; ')}${more}}`;
  }
  return phrase;
}

/** Top-level parameters of a tool: name, schema, required. */
export function toolParams(tool: Tool): { name: string; schema: SchemaNode; required: boolean }[] {
  const root = tool.inputSchema ?? {};
  const shape = objectShape(root, root);
  const required = new Set(shape.required);
  return Object.entries(shape.properties).map(([name, schema]) => ({ name, schema: deref(schema, root), required: required.has(name) }));
}

/** The parameter lines of a full summary (required first, at most {@link MAX_PARAMS}). */
export function paramSignature(tool: Tool): string[] {
  const params = toolParams(tool);
  if (!params.length) return ['(no parameters: call it with {})'];
  const ordered = [...params.filter((p) => p.required), ...params.filter((p) => !p.required)];
  const lines = ordered.slice(0, MAX_PARAMS).map((p) => {
    const desc = typeof p.schema.description === 'string' ? ` — ${firstSentenceOf(p.schema.description, CLIP.param)}` : '';
    return `- ${p.name} (${clipText(typePhrase(p.schema, tool.inputSchema), 220)}${p.required ? ', required' : ''})${desc}`;
  });
  if (ordered.length > MAX_PARAMS) lines.push(`- … and ${ordered.length - MAX_PARAMS} more optional parameters (leave them out)`);
  return lines;
}

/** A full summary of one tool (Markdown section headed `### <name>`). */
export function fullSummary(tool: Tool, interpretation: ToolInterpretation | undefined): string {
  const does = interpretation ? interpretation.what_it_does : (tool.description ?? '(no description)');
  const lines = [`### ${tool.name}`, `Does: ${clipText(does, CLIP.does)}`];
  if (interpretation) {
    lines.push(`Used for: ${clipText(interpretation.why_its_used, CLIP.usedFor)}`);
    lines.push(`Needs: ${clipText(interpretation.what_it_needs, CLIP.needs)}`);
  }
  lines.push('Parameters:', ...paramSignature(tool));
  return lines.join('\n');
}

/** A compact summary: the name, one sentence of purpose, and the parameters with types (`*` = required). */
export function compactSummary(tool: Tool, interpretation: ToolInterpretation | undefined): string {
  const does = firstSentenceOf(interpretation?.what_it_does ?? tool.description ?? '', 140);
  const params = toolParams(tool);
  const ordered = [...params.filter((p) => p.required), ...params.filter((p) => !p.required)];
  const shown = ordered.slice(0, 8).map((p) => `${p.name}${p.required ? '*' : ''}: ${clipText(typePhrase(p.schema, tool.inputSchema), 60)}`);
  const more = ordered.length > 8 ? `; +${ordered.length - 8} optional` : '';
  return `### ${tool.name}\n${does || '(no description)'}\nParameters: ${shown.length ? shown.join('; ') + more : 'none ({})'}`;
}

/**
 * The most tokens a tool's full summary can take, whatever its interpretation says: the
 * summary without one, plus the clip lengths of the interpretation's fields.
 */
export function fullSummaryBound(tool: Tool): number {
  const withoutInterpretation = fullSummary(tool, undefined);
  return estimateTokens(withoutInterpretation) + Math.ceil((CLIP.does + CLIP.usedFor + CLIP.needs + 40) / 4);
}

/** The most tokens a tool's compact summary can take. */
export function compactSummaryBound(tool: Tool): number {
  return estimateTokens(compactSummary(tool, undefined)) + Math.ceil(150 / 4);
}
