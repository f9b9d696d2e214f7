/**
 * The offline provider: a whole harness from a spec with no network and no LLM, deterministic
 * for a seed (same seed → byte-identical records). It is what the main command runs on a fresh
 * machine and what tests run on. The per-stage functions are exported so a runner can mix them
 * with LLM stages (e.g. LLM scenarios with offline mocks).
 *
 * ## Broken schemas
 * A tool whose `inputSchema` ajv cannot compile, or for which no schema-valid arguments are
 * found in `ARGUMENT_ATTEMPTS` tries, is *skipped with a reason* (reported in `skipped` and the
 * manifest counts). A schema that compiles but declares no parameters (e.g. the captured GitLab
 * server whose schemas are just `{"$schema": …}`) is *not* skipped: its calls take `{}`, which
 * is exactly what it declares, and they validate.
 */
import type { HarnessManifest, HarnessRecord, ManifestCounts, SkippedTool } from '../../harness/format';
import { FORMAT_VERSION } from '../../harness/format';
import { specHashOnce, toolHashes } from '../../harness/hash';
import type { Spec } from '../../spec/model';
import { assembleRecord } from '../assembleRecord';
import { recordCounts } from '../runWriter';
import { mockOffline } from './mock';
import { analysisSteps, buildScenario, callabilitySteps, planCoverage, planTier, type BuiltScenario, type Plan } from './scenarios';
import { runSteps, runStepsYielding, type Steps } from './steps';
import { OPENING_VARIANTS, turnsOffline } from './turns';
import type { Scenario } from '../schemas';

export { interpretOffline } from './interpret';
export { mockOffline, type MockOfflineOptions } from './mock';
export { scenariosOffline, callability, ARGUMENT_ATTEMPTS, type ScenariosOfflineOptions } from './scenarios';
export { turnsOffline, type TurnsOfflineOptions } from './turns';

/** Provider id written into offline records (its home is with the record format's readers). */
import { OFFLINE_PROVIDER } from '../../harness/offlineStages';
export { OFFLINE_PROVIDER };
/** Model id of the offline generator; bump when its output changes shape. */
export const OFFLINE_MODEL = 'offline-v6';
/** Generator version per stage (the offline counterpart of prompt template versions). */
export const OFFLINE_PROMPT_VERSIONS: Readonly<Record<string, string>> = {
  interpret: 'offline-1',
  scenarios: 'offline-5',
  mock: 'offline-4',
  turns: 'offline-2',
};

/** Options of `generateOffline`. */
export interface GenerateOfflineOptions {
  /** Seed of every random choice. */
  seed: number;
  /** Simple scenarios requested. */
  simple: number;
  /** Complex scenarios requested. */
  complex: number;
  /** Add scenarios until every callable tool is covered (default true). */
  cover?: boolean;
}

/** What `generateOffline` returns. */
export interface OfflineResult {
  records: HarnessRecord[];
  manifestCounts: ManifestCounts;
  /** Tools left out and why (also in `manifestCounts.skipped`). */
  skipped: SkippedTool[];
}

function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s.slice(0, 48).replace(/-+$/, '') || 'scenario';
}

/** Other draws of values tried when a scenario's prompt repeats an earlier one word for word. */
const PROMPT_RETRIES = 3;

/** Longest quoted value a title borrows to tell two scenarios of one task apart. */
const TITLE_DETAIL_MAX = 40;

/**
 * The scenario's title, told apart from the titles used so far by the first short value the
 * user states ("Get problem: \"db-timeout\""), else by a number; `used` is updated.
 */
function uniqueTitle(scenario: Scenario, used: Set<string>): string {
  let title = scenario.title;
  if (used.has(title)) {
    const details = [...scenario.prompt.matchAll(/"([^"]{2,})"/g)].map((m) => m[1] ?? '').filter((d) => d.length <= TITLE_DETAIL_MAX);
    const fresh = details.map((d) => `${scenario.title}: "${d}"`).find((t) => !used.has(t));
    title = fresh ?? scenario.title;
    for (let n = 2; used.has(title); n++) title = `${scenario.title} (${n})`;
  }
  used.add(title);
  return title;
}

const bump = (m: Record<string, number>, key: string, by = 1): void => {
  if (by > 0) m[key] = (m[key] ?? 0) + by;
};

/** Generates a complete harness offline. Pure and deterministic: same spec and options → identical records. */
export function generateOffline(spec: Spec, options: GenerateOfflineOptions): OfflineResult {
  return runSteps(offlineSteps(spec, options));
}

/**
 * What an offline run hands out as it goes: once every scenario is built, how many records will
 * follow and the tools skipped; then each record the moment it is assembled (so a runner writes
 * it at once, and a run stopped half-way keeps what it made).
 */
export type OfflineEvent = { kind: 'planned'; records: number; skipped: SkippedTool[] } | { kind: 'record'; record: HarnessRecord };

/**
 * {@link generateOffline} handing the event loop back between tools, scenarios and records (the
 * extension host stays responsive on a 200-tool spec), and each {@link OfflineEvent} to
 * `onEvent` (awaited); identical result. Rejects once `signal` is aborted.
 */
export function generateOfflineYielding(
  spec: Spec,
  options: GenerateOfflineOptions,
  signal?: AbortSignal,
  onEvent?: (event: OfflineEvent) => Promise<void> | void,
): Promise<OfflineResult> {
  return runStepsYielding(offlineSteps(spec, options), signal, onEvent);
}

function* offlineSteps(spec: Spec, options: GenerateOfflineOptions): Steps<OfflineResult, OfflineEvent | void> {
  const seed = Math.trunc(options.seed);
  const analysis = yield* analysisSteps(spec);
  const { callable, skipped } = yield* callabilitySteps(spec, seed);
  const repaired: Record<string, number> = {};
  const discarded: Record<string, number> = {};
  const built: BuiltScenario[] = [];
  const covered = new Set<string>();

  const prompts = new Set<string>();
  function* buildAll(plans: readonly Plan[]): Steps<void> {
    for (const plan of plans) {
      let b = buildScenario(analysis, plan, seed);
      // Two scenarios asking the very same thing are one: draw other values (a fixed few tries).
      for (let retry = 1; b && prompts.has(b.scenario.prompt) && retry <= PROMPT_RETRIES; retry++) {
        b = buildScenario(analysis, { ...plan, key: `${plan.key}#${retry}` }, seed) ?? b;
      }
      // A retry draws with its own key (`simple:6#1`), but the scenario is still the plan's: the
      // record id's ordinal comes from the plan's key, never the retry's (that gave `sNaN-…`).
      if (b) b = { ...b, plan };
      if (b) prompts.add(b.scenario.prompt);
      yield;
      if (!b) {
        bump(discarded, 'no-valid-arguments');
        continue;
      }
      bump(repaired, 'args-resampled', b.resampled);
      built.push(b);
    }
    covered.clear();
    for (const b of built) for (const c of b.scenario.agent_workflow) covered.add(c.name);
  }

  const planned = new Set<string>();
  yield* buildAll(planTier(analysis, callable, 'simple', Math.max(0, options.simple), seed, planned));
  yield* buildAll(planTier(analysis, callable, 'complex', Math.max(0, options.complex), seed, planned, 0));
  let coverageRound = 0;
  if (options.cover ?? true) {
    const next = { simple: Math.max(0, options.simple), complex: Math.max(0, options.complex) };
    const plans = planCoverage(analysis, callable, seed, new Set(covered), next);
    yield* buildAll(plans);
    coverageRound += plans.length;
    // Last resort: one single-call scenario per tool still uncovered (a build can fail where the probe passed).
    const rest = callable.filter((t) => !covered.has(t.name));
    const extra: Plan[] = rest.map((t, i) => ({
      tier: 'simple',
      key: `simple:${next.simple + plans.length + i}`,
      target: t,
      tools: [t],
      round: 'coverage' as const,
    }));
    yield* buildAll(extra);
    coverageRound += extra.length;
  }

  yield { kind: 'planned', records: built.length, skipped };
  const records: HarnessRecord[] = [];
  const usedIds = new Set<string>();
  const usedTitles = new Set<string>();
  for (const b of built) {
    const { plan } = b;
    const scenario = { ...b.scenario, title: uniqueTitle(b.scenario, usedTitles) };
    const mock = mockOffline(spec, scenario, { seed });
    let conversation: HarnessRecord['conversation'] = [];
    if (plan.tier === 'complex') {
      let split = turnsOffline(spec, scenario, mock, { seed });
      // An opening word for word like an earlier record's reads as the same task: word it another way.
      for (let variant = 1; split && prompts.has(split.turns[0]?.prompt ?? '') && variant < OPENING_VARIANTS; variant++)
        split = turnsOffline(spec, scenario, mock, { seed, variant });
      if (split) {
        conversation = split.turns;
        prompts.add(split.turns[0]?.prompt ?? '');
      } else bump(discarded, 'turns:single-turn');
    }
    const n = Number(plan.key.split(':')[1] ?? 0) + 1;
    let id = `${plan.tier === 'simple' ? 's' : 'c'}${String(n).padStart(3, '0')}-${slug(scenario.title)}`;
    while (usedIds.has(id)) id = `${id}-x`;
    usedIds.add(id);
    const record = assembleRecord(spec, {
      id,
      tier: plan.tier,
      category: b.category,
      scenario,
      mockWorkflow: mock.mock_workflow,
      expectedResponse: mock.expected_response,
      conversation,
      provenance: { provider: OFFLINE_PROVIDER, model: OFFLINE_MODEL, temperature: null, seed, promptVersions: { ...OFFLINE_PROMPT_VERSIONS } },
    });
    records.push(record);
    yield { kind: 'record', record };
  }

  const manifestCounts = recordCounts(spec, records, { repaired, discarded, coverageRound, skipped });
  return { records, manifestCounts, skipped };
}

/**
 * The manifest of a completed offline run. Times come from the caller (core has no clock of
 * its own), so tests and byte-identical reruns can pass fixed ones.
 */
export function offlineManifest(
  spec: Spec,
  options: GenerateOfflineOptions,
  result: OfflineResult,
  timings: { startedAt: string; finishedAt?: string; durationMs?: number },
): HarnessManifest {
  const manifest: HarnessManifest = {
    formatVersion: FORMAT_VERSION,
    spec: { name: spec.name, source: spec.source, hash: specHashOnce(spec), toolHashes: toolHashes(spec) },
    provider: OFFLINE_PROVIDER,
    model: OFFLINE_MODEL,
    temperature: null,
    promptVersions: { ...OFFLINE_PROMPT_VERSIONS },
    seed: Math.trunc(options.seed),
    requested: { simple: Math.max(0, options.simple), complex: Math.max(0, options.complex) },
    counts: result.manifestCounts,
    tokens: { input: 0, output: 0, calls: 0 },
    timings: { ...timings },
    status: 'complete',
    recordIds: result.records.map((r) => r.id),
  };
  if (spec.server?.version) manifest.spec.serverVersion = spec.server.version;
  return manifest;
}
