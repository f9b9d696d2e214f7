/**
 * Spec text → findings placed in the text: the loader and the complexity analysis joined, with
 * each finding put on the tool's `name` (or the offending parameter's key). Used by the editor's
 * inline diagnostics and by anything else that wants positions.
 */
import { analyzeSpec, type ComplexityThresholds, type Finding, type ServerProfile } from './complexity';
import { lineColumnIndex, toRange, type TextRange } from './spec/jsonText';
import type { LoadProblem } from './spec/model';
import { loadSpecText } from './spec/snapshot';

export interface LintDiagnostic {
  code: string;
  severity: Finding['severity'];
  message: string;
  tool?: string;
  param?: string;
  range: TextRange;
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
export function lintSpecText(text: string, file: string, thresholds?: ComplexityThresholds): LintResult {
  const load = loadSpecText(text, file);
  if (!load.ok) {
    const result: LintResult = { problem: load.problem, diagnostics: [] };
    if (load.notSpec) result.notSpec = true;
    else if (load.problem.line !== undefined) {
      const pos = { line: load.problem.line - 1, character: (load.problem.column ?? 1) - 1 };
      result.diagnostics.push({ code: 'invalid-json', severity: 'error', message: load.problem.message, range: { start: pos, end: pos } });
    }
    return result;
  }
  const { spec } = load;
  const profile = analyzeSpec(spec, thresholds);
  const at = lineColumnIndex(text);
  const whole: TextRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const diagnostics = profile.findings.map((f): LintDiagnostic => {
    // toolIndex, not the name: two tools may share a name (itself a finding).
    const loc = f.toolIndex !== undefined ? spec.locations?.[f.toolIndex] : undefined;
    const r = (f.param !== undefined ? loc?.params[f.param] : undefined) ?? loc?.name ?? loc?.tool ?? f.location;
    const d: LintDiagnostic = { code: f.code, severity: f.severity, message: f.message, range: r ? toRange(at, r) : whole };
    if (f.tool !== undefined) d.tool = f.tool;
    if (f.param !== undefined) d.param = f.param;
    return d;
  });
  return { profile, diagnostics };
}
