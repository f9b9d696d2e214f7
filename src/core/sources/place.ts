/**
 * A spec's findings placed in the source that defines its tools: on the tool's name, or on the
 * parameter's line, matched by tool name; with the mechanical fixes each one allows and the
 * `agent-seer-ignore` comments honoured.
 */
import { analyzeSpec, CLIENT_FINDING_CODE, structuredStringHint, type Finding } from '../complexity';
import { onePerSharedProblem, specFindings, type LintDiagnostic, type LintOptions } from '../lint';
import { lineColumnIndex, toRange } from '../spec/jsonText';
import type { SourceRange, Spec } from '../spec/model';
import { isRecord } from '../util/isRecord';
import type { LocatedSource, SourceParam, SourceTool } from './types';

/** A text change: replace `length` characters at `offset` with `newText`. */
export interface TextEdit {
  offset: number;
  length: number;
  newText: string;
}

/** A mechanical fix offered for a diagnostic. */
export interface SourceFix {
  title: string;
  edit: TextEdit;
}

/** A finding placed in a source file. */
export interface SourceDiagnostic extends LintDiagnostic {
  fixes: SourceFix[];
}

/** The comment that silences findings on the next line (or its own line): codes separated by spaces or commas. */
export const IGNORE_MARKER = 'agent-seer-ignore';
const IGNORE_LINE = new RegExp(`(?://|#)\\s*${IGNORE_MARKER}\\b([^\\n]*)`);

/** Line number → codes ignored there (an empty set ignores every code). */
function ignoredLines(text: string): Map<number, Set<string>> {
  const ignored = new Map<number, Set<string>>();
  text.split('\n').forEach((line, i) => {
    const m = IGNORE_LINE.exec(line);
    if (!m) return;
    const codes = (m[1] ?? '').split(/[\s,]+/).filter((c) => /^[a-z]+(?:-[a-z]+)+$/.test(c));
    ignored.set(i, new Set(codes));
  });
  return ignored;
}

function isIgnored(ignored: Map<number, Set<string>>, line: number, code: string): boolean {
  for (const at of [line - 1, line]) {
    const codes = ignored.get(at);
    if (codes && (codes.size === 0 || codes.has(code))) return true;
  }
  return false;
}

/** The spec of a source file: the one sharing the most tool names with it (none when none does). */
export function matchSpec<T extends { spec: Spec }>(located: LocatedSource, candidates: readonly T[]): T | undefined {
  const names = new Set(located.tools.map((t) => t.name));
  let best: T | undefined;
  let bestCount = 0;
  for (const c of candidates) {
    const count = c.spec.tools.filter((t) => names.has(t.name)).length;
    if (count > bestCount) [best, bestCount] = [c, count];
  }
  return best;
}

/** A parameter's schema in the spec, for what the fixes need to know. */
function paramSchema(spec: Spec, toolIndex: number | undefined, param: string | undefined): Record<string, unknown> | undefined {
  const schema = toolIndex === undefined ? undefined : spec.tools[toolIndex]?.inputSchema;
  const props = isRecord(schema) && isRecord(schema.properties) ? schema.properties : undefined;
  const sub = param === undefined ? undefined : props?.[param];
  return isRecord(sub) ? sub : undefined;
}

/** `.describe("TODO")`, a `description` key, or an `Args:` line in the docstring. */
function describeStub(text: string, name: string, p: SourceParam): TextEdit | undefined {
  const style = p.style;
  if (style.kind === 'zod') return { offset: style.valueEnd, length: 0, newText: `.describe(${style.quote}TODO${style.quote})` };
  if (style.kind === 'json') {
    const key = style.quotedKeys ? `${style.quote}description${style.quote}` : 'description';
    return { offset: style.objectStart, length: 0, newText: ` ${key}: ${style.quote}TODO${style.quote},` };
  }
  const { docstring, bodyIndent: indent } = style;
  const arg = `${indent}    ${name}: TODO`;
  if (!docstring) return { offset: style.bodyStart, length: 0, newText: `"""TODO: what this tool does.\n\n${indent}Args:\n${arg}\n${indent}"""\n${indent}` };
  const before = text.slice(0, docstring.contentEnd);
  const open = Math.max(before.lastIndexOf('"""'), before.lastIndexOf("'''")) + 3;
  const content = text.slice(open, docstring.contentEnd);
  const end = open + content.trimEnd().length;
  const closeOnOwnLine = text.slice(end, docstring.contentEnd).includes('\n');
  const newText = /^\s*Args:\s*$/m.test(content) ? `\n${arg}` : `\n\n${docstring.indent}Args:\n${arg}${closeOnOwnLine ? '' : `\n${indent}`}`;
  return { offset: end, length: 0, newText };
}

/** The zod method for each JSON Schema format a hint names. */
const ZOD_FORMAT: Record<string, string> = { 'date-time': 'datetime', email: 'email', uri: 'url', uuid: 'uuid' };

/** A `format` or `enum` the parameter's name or description implies. */
function formatFix(p: SourceParam, param: string, schema: Record<string, unknown> | undefined, text: string): SourceFix | undefined {
  const description = typeof schema?.description === 'string' ? schema.description : undefined;
  const hint = structuredStringHint(param, description);
  const format = /format: "([\w-]+)"/.exec(hint?.suggestion ?? '')?.[1];
  const values = hint?.kind === 'enum-like' ? [...new Set([...(description ?? '').matchAll(/['"`]([A-Za-z_][\w-]*)['"`]/g)].map((m) => m[1] as string))] : [];
  const style = p.style;
  if (style.kind === 'json') {
    const key = (k: string): string => (style.quotedKeys ? `${style.quote}${k}${style.quote}` : k);
    const q = (v: string): string => `${style.quote}${v}${style.quote}`;
    if (format) return { title: `Add format "${format}"`, edit: { offset: style.objectStart, length: 0, newText: ` ${key('format')}: ${q(format)},` } };
    if (values.length >= 2)
      return {
        title: `Add enum [${values.join(', ')}]`,
        edit: { offset: style.objectStart, length: 0, newText: ` ${key('enum')}: [${values.map(q).join(', ')}],` },
      };
    return undefined;
  }
  if (style.kind === 'zod' && format && ZOD_FORMAT[format]) {
    // Only right after `z.string()`: after `.optional()` or a transform the method may not exist.
    const value = text.slice(style.valueStart, style.valueEnd);
    const at = /^z\.string\(\)/.exec(value);
    if (at) return { title: `Add .${ZOD_FORMAT[format]}()`, edit: { offset: style.valueStart + at[0].length, length: 0, newText: `.${ZOD_FORMAT[format]}()` } };
  }
  return undefined;
}

/** A comment line above `offset`'s line that ignores `code` there. */
function ignoreFix(text: string, offset: number, code: string, python: boolean): SourceFix {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return { title: `Ignore ${code} here`, edit: { offset: lineStart, length: 0, newText: `${indent}${python ? '#' : '//'} ${IGNORE_MARKER} ${code}${eol}` } };
}

/**
 * Places a spec's findings in a source file that defines (some of) its tools. Findings about
 * tools the file does not define are left out; the VS Code tool count goes on the first tool.
 */
export function lintSource(text: string, located: LocatedSource, spec: Spec, options: LintOptions = {}): SourceDiagnostic[] {
  const byName = new Map<string, SourceTool>();
  for (const t of located.tools) if (!byName.has(t.name)) byName.set(t.name, t);
  const findings: Finding[] = specFindings(analyzeSpec(spec, options.thresholds), spec, options.clients);
  const at = lineColumnIndex(text);
  const ignored = ignoredLines(text);
  const python = located.file.toLowerCase().endsWith('.py');
  const placed: SourceDiagnostic[] = [];
  for (const f of findings) {
    const toolName = f.toolIndex === undefined ? undefined : spec.tools[f.toolIndex]?.name;
    const tool = f.code === CLIENT_FINDING_CODE.vscode ? located.tools[0] : toolName === undefined ? undefined : byName.get(toolName);
    if (!tool) continue;
    const param = f.param === undefined ? undefined : tool.params.get(f.param);
    const where: SourceRange = param?.range ?? tool.nameRange;
    const range = toRange(at, where);
    if (isIgnored(ignored, range.start.line, f.code)) continue;
    const fixes: SourceFix[] = [];
    const schema = paramSchema(spec, f.toolIndex, f.param);
    if (param && f.param !== undefined && f.code === 'param-no-description' && schema?.description === undefined) {
      const edit = describeStub(text, f.param, param);
      if (edit) fixes.push({ title: `Add a description for "${f.param}"`, edit });
    }
    if (param && f.param !== undefined && f.code === 'free-text-format') {
      const fix = formatFix(param, f.param, schema, text);
      if (fix) fixes.push(fix);
    }
    fixes.push(ignoreFix(text, where.offset, f.code, python));
    const d: SourceDiagnostic = { code: f.code, severity: f.severity, message: f.message, summary: f.summary, tool: tool.name, range, fixes };
    if (f.param !== undefined) d.param = f.param;
    placed.push(d);
  }
  return onePerSharedProblem(placed) as SourceDiagnostic[];
}
