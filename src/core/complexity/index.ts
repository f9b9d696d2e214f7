/** Schema-complexity analysis: metrics, findings and their codes. Pure; no `vscode` import. */
export {
  analyzeSpec,
  analyzeTool,
  finding,
  DEFAULT_THRESHOLDS,
  type ComplexityThresholds,
  type Finding,
  type ServerProfile,
  type ToolAnalysis,
  type ToolMetrics,
} from './analyze';
export {
  CLIENT_FINDING_CODE,
  CLIENT_IDS,
  FINDING_CODES,
  FINDING_CODE_LIST,
  isFindingCode,
  VSCODE_MAX_TOOLS_PER_REQUEST,
  type ClientId,
  type FindingCode,
  type FindingCodeDoc,
  type Severity,
} from './codes';
export { formatFixed } from './format';
export { kindLabel, nameTokens, structuredStringHint, type StructuredHint, type StructuredKind } from './formatHints';
