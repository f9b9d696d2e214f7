/**
 * Spec text → findings placed in the text: the loader and the complexity analysis joined, with
 * each finding put on the tool's `name` (or the offending parameter's key). Used by the editor's
 * inline diagnostics and by anything else that wants positions.
 */
import { analyzeSpec, CLIENT_FINDING_CODE, type ClientId, type ComplexityThresholds, type Finding, type ServerProfile } from './complexity';
import { clientFindings } from './compat/clients';
import { lineColumnIndex, toRange, type TextRange } from './spec/jsonText';
import type { LoadProblem } from './spec/model';
import { loadSpecText } from './spec/snapshot';

export interface LintDiagnostic {
  code: string;
  severity: Finding['severity'];
  /** What is wrong, then why. */
  message: string;
  /** What is wrong, in one sentence (what the editor shows). */
  summary: string;
  tool?: string;
  param?: string;
  range: TextRange;
  /** The other places the finding is about (the other tools sharing the parameter or the schema rewrite). */
  related?: { tool: string; range: TextRange }[];
}

/** What a lint takes besides the text. */
export interface LintOptions {
  thresholds?: ComplexityThresholds;
  /** Clients to check compatibility with (none when absent). */
  clients?: readonly ClientId[];
}

/** Every finding of a spec: the complexity analysis, then the client checks asked for. */
export function specFindings(profile: ServerProfile, spec: Parameters<typeof clientFindings>[0], clients: readonly ClientId[] = []): Finding[] {
  return [...profile.findings, ...clientFindings(spec, clients)];
}

/** Codes where one problem shared by many tools is one diagnostic: the same schema rewrite for a client. */
const GROUPED_BY_MESSAGE: ReadonlySet<string> = new Set([CLIENT_FINDING_CODE.gemini, CLIENT_FINDING_CODE.openai]);

/**
 * One diagnostic per shared problem, the other places as its related locations: so one shared
 * `pageId` is one warning, not thirty, and one schema pattern Gemini must rewrite in every tool
 * does not put the same mark on every tool (a tool with a problem of its own still stands out).
 * `ambiguous-shared-param` groups by parameter name; client-compatibility findings by their text.
 */
export function onePerSharedProblem(diagnostics: LintDiagnostic[]): LintDiagnostic[] {
  const first = new Map<string, LintDiagnostic>();
  const out: LintDiagnostic[] = [];
  for (const d of diagnostics) {
    const key =
      d.code === 'ambiguous-shared-param' && d.param !== undefined ? `param:${d.param}` : GROUPED_BY_MESSAGE.has(d.code) ? `${d.code}:${d.summary}` : undefined;
    if (key === undefined) {
      out.push(d);
      continue;
    }
    const kept = first.get(key);
    if (!kept) {
      const copy: LintDiagnostic = { ...d, related: [] };
      first.set(key, copy);
      out.push(copy);
    } else kept.related?.push({ tool: d.tool ?? '', range: d.range });
  }
  for (const d of first.values()) {
    const others = d.related?.length ?? 0;
    if (others === 0) continue;
    d.summary =
      d.code === 'ambiguous-shared-param'
        ? `Parameter "${d.param}" means different things across ${others + 1} tools here (see related).`
        : `${d.summary.replace(/\.$/, '')}; the same in ${others} other tool${others === 1 ? '' : 's'} here (see related).`;
  }
  return out;
}

export interface LintResult {
  /** Undefined when the text is not a loadable spec. */
  profile?: ServerProfile;
  /** Why the text could not be loaded (bad JSON says where). */
  problem?: LoadProblem;
  notSpec?: boolean;
  diagnostics: LintDiagnostic[];
}

/** Lints a spec snapshot's text. Never throws for bad input. */
export function lintSpecText(text: string, file: string, options: LintOptions = {}): LintResult {
  const load = loadSpecText(text, file);
  if (!load.ok) {
    const result: LintResult = { problem: load.problem, diagnostics: [] };
    if (load.notSpec) result.notSpec = true;
    else if (load.problem.line !== undefined) {
      const pos = { line: load.problem.line - 1, character: (load.problem.column ?? 1) - 1 };
      const message = load.problem.message;
      result.diagnostics.push({ code: 'invalid-json', severity: 'error', message, summary: message, range: { start: pos, end: pos } });
    }
    return result;
  }
  const { spec } = load;
  const profile = analyzeSpec(spec, options.thresholds);
  const at = lineColumnIndex(text);
  const whole: TextRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const diagnostics = specFindings(profile, spec, options.clients).map((f): LintDiagnostic => {
    // toolIndex, not the name: two tools may share a name (itself a finding).
    const loc = f.toolIndex !== undefined ? spec.locations?.[f.toolIndex] : undefined;
    const r = (f.param !== undefined ? loc?.params[f.param] : undefined) ?? loc?.name ?? loc?.tool ?? f.location;
    const d: LintDiagnostic = { code: f.code, severity: f.severity, message: f.message, summary: f.summary, range: r ? toRange(at, r) : whole };
    if (f.tool !== undefined) d.tool = f.tool;
    if (f.param !== undefined) d.param = f.param;
    return d;
  });
  return { profile, diagnostics: onePerSharedProblem(diagnostics) };
}
