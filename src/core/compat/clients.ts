/**
 * Client-compatibility findings: what stops a tool from working in a given client, from that
 * client's own documentation (each code's `source` in `complexity/codes.ts`). The Gemini rules are
 * the ones `toFunctionParameters` applies when it converts a schema for function declarations,
 * so the lint and the agent loop cannot disagree about what Gemini takes.
 */
import { CLIENT_FINDING_CODE, finding, VSCODE_MAX_TOOLS_PER_REQUEST, type ClientId, type Finding } from '../complexity';
import { toFunctionParameters } from '../llm/toolCalling';
import type { Spec } from '../spec/model';
import { isRecord } from '../util/isRecord';

/**
 * Keywords OpenAI's strict mode does not accept (its supported subset is types, `properties`,
 * `required`, `items`, `enum`, `anyOf`, `$ref`/`$defs`, `description` and a few string and number
 * limits): https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 */
const OPENAI_STRICT_UNSUPPORTED = [
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'unevaluatedProperties',
];

/** What in one object schema (and the schemas under it) strict mode refuses; each kind once. */
function strictProblems(schema: unknown, out: Set<string>, path: string, depth = 0): void {
  if (!isRecord(schema) || depth > 32) return;
  for (const k of OPENAI_STRICT_UNSUPPORTED) if (schema[k] !== undefined) out.add(`\`${k}\``);
  const props = isRecord(schema.properties) ? schema.properties : undefined;
  if (props || schema.type === 'object') {
    if (schema.additionalProperties !== false) out.add(`no \`additionalProperties: false\`${path ? ` on ${path}` : ''}`);
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const optional = Object.keys(props ?? {}).filter((p) => !required.has(p));
    if (optional.length > 0)
      out.add(`optional ${optional.length === 1 ? 'property' : 'properties'} ${optional.map((p) => `"${p}"`).join(', ')}${path ? ` in ${path}` : ''}`);
  }
  for (const [name, sub] of Object.entries(props ?? {})) strictProblems(sub, out, name, depth + 1);
  if (schema.items !== undefined) strictProblems(schema.items, out, path ? `${path}[]` : '[]', depth + 1);
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(schema[k])) for (const s of schema[k]) strictProblems(s, out, path, depth + 1);
  for (const k of ['$defs', 'definitions'] as const)
    if (isRecord(schema[k])) for (const [n, s] of Object.entries(schema[k])) strictProblems(s, out, n, depth + 1);
}

/**
 * Rewrites of `toFunctionParameters` that lose nothing in Gemini: its Schema takes `default` and
 * ignores it ("so that developers who send schemas with a default field don't get unknown-field
 * errors", https://ai.google.dev/api/caching#Schema).
 */
const GEMINI_HARMLESS = new Set(['default dropped']);

/** A list in a sentence: the first four, then how many more. */
function listed(items: string[]): string {
  return items.length > 4 ? `${items.slice(0, 4).join(', ')} and ${items.length - 4} more` : items.join(', ');
}

/**
 * The client-compatibility findings of a spec for the clients asked for, in tool order (the
 * VS Code tool count last). Pure; tools whose schema is not an object are `broken-schema` already.
 */
export function clientFindings(spec: Spec, clients: readonly ClientId[]): Finding[] {
  const want = new Set(clients);
  const findings: Finding[] = [];
  spec.tools.forEach((tool, toolIndex) => {
    if (!isRecord(tool.inputSchema)) return;
    if (want.has('gemini')) {
      const warnings = toFunctionParameters(tool.inputSchema).warnings.filter((w) => !GEMINI_HARMLESS.has(w));
      if (warnings.length > 0) {
        findings.push(finding(CLIENT_FINDING_CODE.gemini, tool.name, `Gemini needs this schema rewritten (${listed(warnings)}).`, { toolIndex }));
      }
    }
    if (want.has('openai')) {
      const problems = new Set<string>();
      strictProblems(tool.inputSchema, problems, '');
      if (problems.size > 0) {
        findings.push(finding(CLIENT_FINDING_CODE.openai, tool.name, `OpenAI strict mode refuses this schema: ${listed([...problems])}.`, { toolIndex }));
      }
    }
  });
  if (want.has('vscode') && spec.tools.length > VSCODE_MAX_TOOLS_PER_REQUEST) {
    findings.push(
      finding(
        CLIENT_FINDING_CODE.vscode,
        spec.name,
        `This server has ${spec.tools.length} tools, more than the ${VSCODE_MAX_TOOLS_PER_REQUEST} VS Code allows in one chat request.`,
        spec.tools.length > 0 ? { toolIndex: 0 } : {},
      ),
    );
  }
  return findings;
}
