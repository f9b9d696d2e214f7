/**
 * The one place that reads `agentSeer.*` settings. Raw values are normalised once here;
 * the rest of the extension receives a typed `Config`.
 */
import * as vscode from 'vscode';
import { MAX_OPTION } from '../core/bounds';
import { CLIENT_IDS, DEFAULT_THRESHOLDS, isFindingCode, type ClientId, type ComplexityThresholds, type FindingCode } from '../core/complexity';
import { isRecord } from '../core/util/isRecord';
import { GENERATION_FALLBACKS, SETTING_DEFAULTS, type GenerationFallback } from '../core/workspace/defaults';

/** What `agentSeer.lint.severity` may set a code to. */
export const LINT_LEVELS = ['error', 'warning', 'information', 'hint', 'off'] as const;
export type LintLevel = (typeof LINT_LEVELS)[number];

/** How findings are shown in the editor. */
export interface LintConfig {
  /** `openFiles`: only files open in an editor; `workspace`: every spec and server source. */
  scope: 'openFiles' | 'workspace';
  /** Per-code severity overrides (unknown codes and levels in the setting are ignored). */
  severity: Partial<Record<FindingCode, LintLevel>>;
  /** Clients whose documented limits are checked. */
  clients: ClientId[];
}

export const CONFIG_SECTION = 'agentSeer';

export interface Config {
  /** Folder (relative to the workspace folder) where snapshots are written. */
  snapshotFolder: string;
  /** Thresholds for the schema-complexity findings. */
  thresholds: ComplexityThresholds;
  /** Seconds to wait for a server to start and to list its tools. */
  serverTimeoutSeconds: number;
  /** Folder (relative to the workspace folder) where harnesses are written, one subfolder per spec. */
  harnessFolder: string;
  generation: { simple: number; complex: number; concurrency: number; rpm: number | undefined; fallback: GenerationFallback };
  gemini: { model?: string; judgeModel?: string; baseUrl?: string };
  openai: { model?: string; baseUrl?: string };
  /**
   * Send Gemini and OpenAI calls as batch jobs (`agentSeer.llm.batch`); milliseconds a synchronous
   * call may go without an answer (`agentSeer.llm.requestTimeout`, in seconds there).
   */
  llm: { batch: boolean; timeoutMs: number };
  /** Estimated USD above which a run asks first (0: never); a price file relative to the workspace folder. */
  cost: { confirmAbove: number; pricesFile?: string };
  lint: LintConfig;
}

function lintConfig(c: vscode.WorkspaceConfiguration): LintConfig {
  const severity: LintConfig['severity'] = {};
  const raw: unknown = c.get('lint.severity');
  if (isRecord(raw)) {
    for (const [code, level] of Object.entries(raw)) {
      if (isFindingCode(code) && (LINT_LEVELS as readonly unknown[]).includes(level)) severity[code] = level as LintLevel;
    }
  }
  const clients: unknown = c.get('lint.clients');
  return {
    scope: c.get('lint.scope') === 'workspace' ? 'workspace' : 'openFiles',
    severity,
    clients: Array.isArray(clients) ? CLIENT_IDS.filter((id) => clients.includes(id)) : [...SETTING_DEFAULTS['lint.clients']],
  };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

/** Drops undefined fields (the config type uses optional properties). */
function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** A number setting in [min, max]; the fallback when it is not a number or below min, the maximum when above it. */
function num(v: unknown, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= min ? Math.min(v, max) : fallback;
}

/** The fallback setting: one of its values, else the default. */
function fallbackSetting(v: unknown): GenerationFallback {
  return GENERATION_FALLBACKS.find((f) => f === v) ?? SETTING_DEFAULTS['generation.fallback'];
}

/** Reads the settings for a scope (a workspace folder, or the window). */
export function readConfig(scope?: vscode.ConfigurationScope): Config {
  const c = vscode.workspace.getConfiguration(CONFIG_SECTION, scope);
  const folder = c.get<string>('snapshotFolder');
  return {
    snapshotFolder: typeof folder === 'string' && folder.trim() ? folder.trim() : SETTING_DEFAULTS.snapshotFolder,
    thresholds: {
      ...DEFAULT_THRESHOLDS,
      maxParams: num(c.get('complexity.maxParams'), DEFAULT_THRESHOLDS.maxParams, 1),
      maxOptionalRatio: num(c.get('complexity.maxOptionalRatio'), DEFAULT_THRESHOLDS.maxOptionalRatio),
      maxDepth: num(c.get('complexity.maxDepth'), DEFAULT_THRESHOLDS.maxDepth, 1),
    },
    serverTimeoutSeconds: num(c.get('serverTimeoutSeconds'), SETTING_DEFAULTS.serverTimeoutSeconds, 1),
    harnessFolder: str(c.get('harnessFolder')) ?? SETTING_DEFAULTS.harnessFolder,
    generation: {
      simple: Math.round(num(c.get('generation.simple'), SETTING_DEFAULTS['generation.simple'], 0, MAX_OPTION.scenarios)),
      complex: Math.round(num(c.get('generation.complex'), SETTING_DEFAULTS['generation.complex'], 0, MAX_OPTION.scenarios)),
      concurrency: Math.round(num(c.get('generation.concurrency'), SETTING_DEFAULTS['generation.concurrency'], 1, MAX_OPTION.concurrency)),
      rpm: num(c.get('generation.rpm'), SETTING_DEFAULTS['generation.rpm'], 0, MAX_OPTION.rpm) || undefined,
      fallback: fallbackSetting(c.get('generation.fallback')),
    },
    gemini: defined({ model: str(c.get('gemini.model')), judgeModel: str(c.get('gemini.judgeModel')), baseUrl: str(c.get('gemini.baseUrl')) }),
    openai: defined({ model: str(c.get('openai.model')), baseUrl: str(c.get('openai.baseUrl')) }),
    llm: {
      batch: c.get('llm.batch') === true,
      timeoutMs: Math.round(num(c.get('llm.requestTimeout'), SETTING_DEFAULTS['llm.requestTimeout'], 1, MAX_OPTION.requestTimeoutSeconds) * 1000),
    },
    cost: { confirmAbove: num(c.get('cost.confirmAbove'), SETTING_DEFAULTS['cost.confirmAbove']), ...defined({ pricesFile: str(c.get('cost.pricesFile')) }) },
    lint: lintConfig(c),
  };
}

/** True when a configuration change touches our settings. */
export function affectsConfig(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration(CONFIG_SECTION);
}
