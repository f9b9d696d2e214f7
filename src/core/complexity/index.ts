/** Schema-complexity analysis: metrics, findings and their codes. Pure; no `vscode` import. */
export {
  analyzeSpec,
  analyzeTool,
  DEFAULT_THRESHOLDS,
  type ComplexityThresholds,
  type Finding,
  type ServerProfile,
  type ToolAnalysis,
  type ToolMetrics,
} from './analyze';
export { FINDING_CODES, FINDING_CODE_LIST, isFindingCode, type FindingCode, type FindingCodeDoc, type Severity } from './codes';
export { formatFixed } from './format';
export { kindLabel, nameTokens, structuredStringHint, type StructuredHint, type StructuredKind } from './formatHints';
