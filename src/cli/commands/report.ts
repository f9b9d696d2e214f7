import { stat } from 'node:fs/promises';
import { gateFailures, type Gate } from '../../core/ci/gates';
import { gateExit, judgedHarnessOf, scoreOption, writeCiFile, writeJunitFile } from '../ciOutputs';
import { relativeTo } from '../format';
import { JUDGE_SARIF_RULES, judgeCiFindings, judgeJunitSuites, type JudgedHarness } from '../../core/ci/judgeCi';
import type { JunitSuite } from '../../core/ci/junit';
import { storedRunSuites } from '../../core/ci/runCi';
import { sarifLog, sarifText, type CiFinding } from '../../core/ci/sarif';
import type { AgentRuns } from '../../core/agents/readRuns';
import { regressionGate } from '../../core/report/compare';
import { parsePreviousReport, PreviousReportError, sinceReport, type PreviousReport } from '../../core/report/since';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { MAX_OPTION } from '../../core/bounds';
import { readRuns } from '../../core/agents/readRuns';
import { specHash } from '../../core/harness/hash';
import { harnessDirsOf } from '../../core/discovery/harnessDirs';
import { assertNotLocked } from '../../core/harness/lock';
import { readHarness, writeFileAtomic } from '../../core/harness/store';
import { findHarnessSpec } from '../../core/harness/specLookup';
import { LEADERBOARD_WARNING } from '../../core/report/leaderboard';
import { analyzeHarnesses, UnknownJudgeError, UNSCORED_WARNING, type HarnessInput } from '../../core/report/analyze';
import { renderHtml } from '../../core/report/render/html';
import { renderMarkdown } from '../../core/report/render/markdown';
import type { ReportModel } from '../../core/report/schema';
import { DEFAULT_RESAMPLES } from '../../core/report/stats';
import { f3 } from '../../core/report/tables';
import type { Spec } from '../../core/spec/model';
import { loadSpecText } from '../../core/spec/snapshot';
import { EXIT, UsageError, worstExit, type Io } from '../errors';
import { intOption, outputFileOption, pathOption, readInputFile } from '../options';
import type { OptionTable, Parsed } from '../command';

/** Output formats of `agent-seer report`. */
export const REPORT_FORMATS = ['md', 'html', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Parsed arguments of `agent-seer report`. */
export interface ReportArgs {
  dirs: string[];
  /** `--format`; undefined when not given (md, or json with `--json`). */
  format?: string;
  /** `--json`: the alias of `--format json`. */
  json?: boolean;
  out?: string;
  /** Judges to report (first = primary, the one thresholds apply to). */
  judges: string[];
  minTc?: string;
  minCoh?: string;
  /** Gate on every agent's call score (the leaderboard's headline). */
  minScore?: string;
  /** Offline gates on the primary judge's corpus: the exact score and the determined share of values. */
  minExact?: string;
  minDeterminacy?: string;
  /** Spec files; each harness takes the one whose hash matches its manifest. */
  specs: string[];
  seed?: string;
  resamples?: string;
  /** `--junit FILE`: a test case per record view under each reported judge, and per stored agent scenario run. */
  junit?: string;
  /** `--sarif FILE`: the reported judges' findings in the record files. */
  sarif?: string;
  /** `--previous FILE`: a report JSON to compare with ("Since the previous report"). */
  previous?: string;
  /** `--fail-on-regression X`: gate on the scenarios that regressed since `--previous`. */
  failOnRegression?: string;
}

const threshold = scoreOption;

/**
 * The offline bars (`--min-exact`, `--min-determinacy`) on the primary judge's corpus: every
 * server pooled, as the judge's own summary counts them; one line per bar missed.
 */
export function offlineGateFailures(model: ReportModel, minExact: number | undefined, minDeterminacy: number | undefined): string[] {
  const primary = model.judges[0];
  const judge = primary?.judge ?? '(none)';
  const gates: Gate[] = [];
  if (minExact !== undefined) gates.push({ flag: '--min-exact', what: `exact score (${judge})`, min: minExact, value: primary?.corpus.exact.mean ?? null });
  if (minDeterminacy !== undefined)
    gates.push({
      flag: '--min-determinacy',
      what: `determined share of values (${judge})`,
      min: minDeterminacy,
      value: primary?.corpus.exactArguments.determinacy.rate ?? null,
    });
  return gateFailures(gates);
}

/** Loads the --spec files once: hash → spec. */
async function loadSpecs(files: readonly string[], cwd: string): Promise<{ file: string; spec: Spec; hash: string }[]> {
  const out = [];
  for (const f of files) {
    const { file, text } = await readInputFile('--spec', f, cwd);
    const loaded = loadSpecText(text, file);
    if (!loaded.ok) throw new UsageError(`${f}: ${loaded.problem.message}`);
    out.push({ file, spec: loaded.spec, hash: specHash(loaded.spec) });
  }
  return out;
}

/** Servers whose mean is below a threshold, under the primary judge; one message each. */
export function thresholdFailures(model: ReportModel, minTc: number | undefined, minCoh: number | undefined): string[] {
  const primary = model.judges[0];
  if (!primary) return [];
  const failures: string[] = [];
  const check = (server: string, what: string, flag: string, mean: number | null, min: number | undefined) => {
    if (min === undefined) return;
    if (mean === null) failures.push(`${server}: no ${what} scores from judge ${primary.judge ?? '(none)'}, so ${flag} ${min} cannot pass`);
    else if (mean < min) failures.push(`${server}: mean ${what} ${f3(mean)} is below ${flag} ${min}`);
  };
  for (const s of primary.servers) {
    check(s.name, 'TC', '--min-tc', s.tc.mean, minTc);
    check(s.name, 'Coh', '--min-coh', s.coh.mean, minCoh);
  }
  return failures;
}

/**
 * Agents whose call score (the leaderboard's headline) is below `--min-score`; one message each. Every agent must pass
 * (not only the best): a gate that one good agent could satisfy would let a regressed one through.
 * With no runs at all the gate cannot pass, so a CI job that lost its runs does not go green.
 */
export function scoreFailures(model: ReportModel, minScore: number | undefined): string[] {
  if (minScore === undefined) return [];
  if (!model.leaderboard.length) return [`no agent runs with scored trajectories in these harnesses, so --min-score ${minScore} cannot pass`];
  return model.leaderboard
    .filter((a) => a.overall.callScore.mean === null || a.overall.callScore.mean < minScore)
    .map((a) => `agent ${a.agent}: call score ${f3(a.overall.callScore.mean)} is below --min-score ${minScore}`);
}

/**
 * `report --junit/--sarif`: the same files `judge` and `run` write, from what the report read:
 * per harness a suite per reported judge (a case per record view) and a suite per agent of its
 * runs/ (a case per scenario run, re-scored; runs are scored only when the spec is known); the
 * SARIF holds the reported judges' findings, placed in the record files. No annotations here:
 * `judge` prints them, and a CI job that runs both would see each twice.
 */
async function writeReportCi(
  model: ReportModel,
  ci: readonly { harness: JudgedHarness; runs: readonly AgentRuns[]; specHash?: string }[],
  args: Pick<ReportArgs, 'junit' | 'sarif'>,
  io: Io,
): Promise<void> {
  const judges = model.judges.map((j) => j.judge).filter((j): j is string => j !== null);
  if (args.junit !== undefined) {
    const suites: JunitSuite[] = [];
    for (const { harness, runs, specHash } of ci) {
      suites.push(...judgeJunitSuites(harness, judges));
      if (harness.spec)
        suites.push(
          ...storedRunSuites({
            harness: basename(harness.dir) || harness.dir,
            spec: harness.spec,
            records: harness.records,
            agents: runs,
            ...(specHash !== undefined ? { specHash } : {}),
          }),
        );
    }
    await writeJunitFile(args.junit, suites, io);
  }
  if (args.sarif !== undefined) {
    const findings: CiFinding[] = ci.flatMap((c) => judgeCiFindings(c.harness, judges));
    await writeCiFile('--sarif', args.sarif, sarifText(sarifLog({ tool: 'agent-seer report', rules: JUDGE_SARIF_RULES, findings, baseDir: io.cwd })), io);
  }
}

/**
 * `agent-seer report <harness-dir…> [--format md|html|json] [--out FILE] [--judge ID]…
 * [--min-tc X] [--min-coh X] [--min-score X] [--spec FILE]… [--seed N] [--resamples B]`
 *
 * Output on stdout (or --out), progress and warnings on stderr. Exit 6 when a server's mean under
 * the primary judge, or an agent's call score, is below a threshold (a CI gate), 2 on bad
 * input (no harness, unknown judge), 5 when every harness holds 0 records (nothing to report).
 */
export async function reportCommand(args: ReportArgs, io: Io): Promise<number> {
  if (!args.dirs.length) throw new UsageError('report needs at least one harness folder');
  if (args.json && args.format !== undefined && args.format !== 'json')
    throw new UsageError(`--json is --format json: it cannot go with --format ${args.format}`);
  const wanted = args.format ?? (args.json ? 'json' : 'md');
  if (!(REPORT_FORMATS as readonly string[]).includes(wanted)) throw new UsageError(`--format takes md, html or json, got "${wanted}"`);
  const format = wanted as ReportFormat;
  const minTc = threshold('--min-tc', args.minTc);
  const minCoh = threshold('--min-coh', args.minCoh);
  const minScore = threshold('--min-score', args.minScore);
  const minExact = threshold('--min-exact', args.minExact);
  const minDeterminacy = threshold('--min-determinacy', args.minDeterminacy);
  const seed = intOption('seed', args.seed, undefined, 0);
  const resamples = intOption('resamples', args.resamples, undefined, 1, MAX_OPTION.resamples);
  const regressionBar = args.failOnRegression === undefined ? undefined : scoreOption('--fail-on-regression', args.failOnRegression);
  if (regressionBar !== undefined && args.previous === undefined)
    throw new UsageError('--fail-on-regression compares with a previous report: give it --previous FILE (a report --format json of before)');
  // Read before the work, so a bad file is said at once.
  let previous: PreviousReport | undefined;
  if (args.previous !== undefined) {
    const { text } = await readInputFile('--previous', args.previous, io.cwd);
    try {
      previous = parsePreviousReport(text, args.previous);
    } catch (e) {
      if (e instanceof PreviousReportError) throw new UsageError(e.message);
      throw e;
    }
  }
  // Checked before the work, so a bad --out is not found only after the report is computed.
  const outFile = args.out !== undefined ? await outputFileOption('--out', args.out, io.cwd) : undefined;
  const rel = relativeTo(io.cwd);
  const progress = (s: string) => io.err(`agent-seer: ${s}`);

  const specs = await loadSpecs(args.specs, io.cwd);
  // A folder of harness folders (a corpus's --out) stands for the harnesses in it.
  const dirs: { dir: string; named: string }[] = [];
  for (const d of args.dirs) {
    const dir = pathOption('harness folder', d, io.cwd);
    const isDir = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) throw new UsageError(`no harness folder at ${d}`);
    const found = await harnessDirsOf(dir);
    if (found.length === 0) throw new UsageError(`${d} is not a harness folder (no valid manifest.json and no records) and holds none`);
    for (const f of found) dirs.push({ dir: f, named: f === dir ? d : rel(f) });
  }
  const inputs: HarnessInput[] = [];
  const warnings: string[] = [];
  /** Per harness, what its CI files need (only read when --junit or --sarif is given). */
  const ciInputs: { harness: JudgedHarness; runs: readonly AgentRuns[]; specHash?: string }[] = [];
  const wantsCi = args.junit !== undefined || args.sarif !== undefined;
  // A harness a generate or judge run is writing is partial: refused (exit 2, naming the run), not reported as a result.
  for (const { dir } of dirs) await assertNotLocked(dir);
  for (const { dir, named: d } of dirs) {
    const read = await readHarness(dir);
    if (!read.manifest && read.records.length === 0) throw new UsageError(`${d} is not a harness folder (no valid manifest.json and no records)`);
    for (const p of read.problems) {
      warnings.push(`${rel(p.file)}: ${p.message}`);
      io.err(`agent-seer: ${rel(p.file)}: ${p.message}`);
    }
    let spec: Spec | undefined;
    const byHash = read.manifest ? specs.find((s) => s.hash === read.manifest?.spec.hash) : undefined;
    if (byHash) spec = byHash.spec;
    else {
      const only = specs.length === 1 && dirs.length === 1 ? specs[0] : undefined;
      const found = await findHarnessSpec(dir, read.manifest, { specFile: only?.file, cwd: io.cwd });
      if (found.ok) {
        spec = found.spec;
        for (const w of found.warnings) warnings.push(`${rel(dir)}: ${w}`);
      } else {
        // Said on stderr as well as in the report: a report without a complexity profile is a degraded one.
        warnings.push(`${rel(dir)}: ${found.error}`);
        io.err(`agent-seer: warning: ${rel(dir)}: ${found.error}${found.notFound ? ' (pass --spec FILE)' : ''}`);
      }
    }
    const runs = await readRuns(dir);
    for (const p of runs.problems) {
      warnings.push(`${rel(p.file)}: ${p.message}`);
      io.err(`agent-seer: ${rel(p.file)}: ${p.message}`);
    }
    const runCount = runs.agents.reduce((n, a) => n + a.runs.length, 0);
    // An empty harness is said, with the reason its run gave, so a report of nothing never reads as a pass.
    if (read.records.length === 0) {
      const why = read.manifest?.error?.replace(/^0 records: /, '') ?? (read.manifest ? `its run is ${read.manifest.status}` : 'no manifest');
      warnings.push(`${rel(dir)}: 0 records (${why})`);
      io.err(`agent-seer: warning: ${rel(dir)}: 0 records (${why})`);
    }
    progress(
      `read ${read.records.length} records from ${rel(dir)}${spec ? '' : ' (no spec: complexity profile left out)'}${runCount ? `, ${runCount} runs of ${runs.agents.length} agents` : ''}`,
    );
    // The harness's folder as shown; the current folder itself by its path, whose last name can name a server without one.
    inputs.push({ dir: dir === io.cwd ? dir : rel(dir), manifest: read.manifest, records: read.records, spec, runs: runs.agents });
    if (wantsCi)
      ciInputs.push({ harness: await judgedHarnessOf(dir, read, spec), runs: runs.agents, ...(read.manifest ? { specHash: read.manifest.spec.hash } : {}) });
  }

  let model: ReportModel;
  try {
    progress(`computing the report (bootstrap B = ${resamples ?? DEFAULT_RESAMPLES})`);
    // Record links from where the report goes (its --out folder, else the current folder).
    const from = outFile ? dirname(outFile) : io.cwd;
    const harnessLinks = inputs.map(
      (i) =>
        relative(from, resolve(io.cwd, i.dir ?? '.'))
          .split(sep)
          .join('/') || '.',
    );
    model = analyzeHarnesses(inputs, { judges: args.judges, seed, resamples, warnings, harnessLinks });
  } catch (e) {
    if (e instanceof UnknownJudgeError) throw new UsageError(e.message);
    throw e;
  }

  if (previous) model.since = sinceReport(previous, model, args.previous ?? '');

  const text = format === 'json' ? `${JSON.stringify(model, null, 2)}\n` : format === 'md' ? renderMarkdown(model) : renderHtml(model);
  if (outFile) {
    const file = outFile;
    // Atomic: a CI job or an open preview never reads half a report.
    await writeFileAtomic(file, text);
    progress(`wrote ${rel(file)}`);
  } else {
    io.out(text.replace(/\n$/, ''));
  }

  if (wantsCi) await writeReportCi(model, ciInputs, args, io);

  // Unscored records and the leaderboard's own warnings (runs left out) are degraded results: said on stderr too.
  for (const w of model.warnings) if (w.startsWith(LEADERBOARD_WARNING) || w.startsWith(UNSCORED_WARNING)) io.err(`agent-seer: warning: ${w}`);
  const failures = [...thresholdFailures(model, minTc, minCoh), ...scoreFailures(model, minScore), ...offlineGateFailures(model, minExact, minDeterminacy)];
  if (regressionBar !== undefined && model.since) {
    // diff's gate, on the scenarios since the previous report: each offender a line, then the bar's line.
    const gate = regressionGate(model.since.scenarios, regressionBar);
    for (const o of gate.offenders) io.err(`agent-seer:   ${o}`);
    if (gate.failed) failures.push(gate.line);
    else io.err(`agent-seer: ${gate.line}`);
  }
  const gateCode = gateExit(io, failures);
  const empty = inputs.every((i) => i.records.length === 0);
  if (empty) io.err(`agent-seer: nothing to report: 0 records in ${inputs.length === 1 ? inputs[0]!.dir : `${inputs.length} harnesses`} (exit ${EXIT.empty})`);
  return worstExit([gateCode, empty ? EXIT.empty : EXIT.ok]);
}

/** The option table of `agent-seer report`. */
export const options = {
  format: { type: 'string' },
  json: { type: 'boolean', default: false },
  out: { type: 'string' },
  judge: { type: 'string', multiple: true, default: [] },
  'min-tc': { type: 'string' },
  'min-coh': { type: 'string' },
  'min-score': { type: 'string' },
  'min-exact': { type: 'string' },
  'min-determinacy': { type: 'string' },
  spec: { type: 'string', multiple: true, default: [] },
  seed: { type: 'string' },
  resamples: { type: 'string' },
  junit: { type: 'string' },
  sarif: { type: 'string' },
  previous: { type: 'string' },
  'fail-on-regression': { type: 'string' },
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer report <harness-dir…> [--format md|html|json] [--json] [--out FILE] [--judge ID]…
                     [--min-tc X] [--min-coh X] [--min-score X] [--min-exact X] [--min-determinacy X]
                     [--spec FILE]… [--seed N] [--resamples B] [--junit FILE] [--sarif FILE]
                     [--previous FILE [--fail-on-regression X]]
                                             the paper's tables and figures for harnesses (one
                                             row per server; several --judge: agreement too),
                                             and the leaderboard of the agents in their runs/;
                                             --min-tc/--min-coh: exit 6 when a server's mean
                                             under the first judge is below (a CI gate);
                                             --min-score: when an agent's call score is
                                             below; --min-exact/--min-determinacy: offline
                                             bars on the first judge; a folder of harness folders: all of them,
                                             with the corpus table`;

/** `agent-seer report --help`. */
export const usage = `Usage: agent-seer report <harness-dir…> [options]

The paper's tables and figures for one or more judged harnesses, one row per server. A folder
that is not a harness stands for the harness folders directly in it (the --out of a corpus
generate). Over several harnesses the report starts with the corpus table (the paper's Tables 3
and 6): per server its tools, scenarios, records, TC and Coh with how many records were scored,
the exact score and the grounding rate, and a total row. When a harness has runs (<harness-dir>/runs/<agent>/<run>/, from agent-seer run or serve), the report
starts with a leaderboard of the agents, re-scored from their trajectories.

Options:
  --format md|html|json  output format (default md)
  --json                 the same as --format json
  --out FILE             write to FILE (default: stdout)
  --judge ID             the judge whose scores to report (repeatable; several: agreement too)
  --min-tc X, --min-coh X
                         exit 6 when a server's mean TC / Coh under the first judge is below X
                         (between 0 and 1): a CI gate
  --min-score X          exit 6 when any agent's call score (the leaderboard's headline) is below X
                         (between 0 and 1), or when no harness has scored runs
  --min-exact X          exit 6 when the exact score (all servers pooled, under the first judge;
                         the offline judge gives it without a key) is below X
  --min-determinacy X    exit 6 when the share of checked values the user's words and outputs pin
                         down (exactArguments.determinacy.rate, all servers pooled) is below X
  --spec FILE            the spec of a harness (repeatable, in the order of the folders)
  --seed N               seed of the bootstrap resampling
  --resamples B          bootstrap resamples (at most ${MAX_OPTION.resamples})
  --junit FILE           also write JUnit XML: per harness, a test case per record view under each
                         reported judge (as judge --junit) and per scenario run of each agent in
                         its runs/ (as run --junit, re-scored from the trajectories)
  --sarif FILE           also write the reported judges' findings as SARIF 2.1.0, each in its
                         record file (as judge --sarif)
  --previous FILE        a previous report's JSON (report --format json): adds "Since the previous
                         report", the corpus scores then and now and the scenarios worse, better,
                         new and vanished (as agent-seer diff compares them)
  --fail-on-regression X with --previous: exit 6 when a scenario's score (0–1, either view) dropped
                         by more than X, or a scenario that passed fails now (diff's gate)
  -h, --help             this text

A harness that a generate or judge run is writing (it holds the folder's lock) is refused with
the run's pid, purpose and start time: report it when the run has finished. A harness with a
symbolic link in its records/, runs/ or .cache/ (or as its manifest) is refused, naming the link.

Exit 0; 6 when a --min-tc/--min-coh/--min-score/--min-exact/--min-determinacy or
--fail-on-regression gate fails (each missed bar is one line on stderr, saying by how much for
the new ones); 2 on bad input (a --previous that is not a report JSON of this version too), a
link inside a harness, or a harness being written; 5 when the harnesses hold 0 records (nothing to report:
the report is still written, and says so).`;

/** Runs `report` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io): Promise<number> {
  return reportCommand(
    {
      dirs: positionals,
      ...(values.format !== undefined ? { format: values.format } : {}),
      json: values.json,
      out: values.out,
      judges: values.judge,
      minTc: values['min-tc'],
      minCoh: values['min-coh'],
      minScore: values['min-score'],
      minExact: values['min-exact'],
      minDeterminacy: values['min-determinacy'],
      specs: values.spec,
      seed: values.seed,
      resamples: values.resamples,
      ...(values.junit !== undefined ? { junit: values.junit } : {}),
      ...(values.sarif !== undefined ? { sarif: values.sarif } : {}),
      ...(values.previous !== undefined ? { previous: values.previous } : {}),
      ...(values['fail-on-regression'] !== undefined ? { failOnRegression: values['fail-on-regression'] } : {}),
    },
    io,
  );
}
