/**
 * What the commands share for CI: the `--junit`/`--sarif` files, GitHub annotations when run as
 * an Actions step, and score bars (`--min-…`). The formats themselves live in `core/ci`.
 */
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { readBoundedFile } from '../core/boundedRead';
import type { JudgedHarness } from '../core/ci/judgeCi';
import { renderJunit, type JunitSuite } from '../core/ci/junit';
import { githubAnnotation, inGithubActions, type CiFinding } from '../core/ci/sarif';
import type { HarnessRead } from '../core/harness/store';
import type { Spec } from '../core/spec/model';
import { writeFileAtomic } from '../core/util/writeFileAtomic';
import { EXIT, errPaint, UsageError, type Io } from './errors';
import { pathOption } from './options';

/** A score bar (`--min-exact X`): a number between 0 and 1; undefined when not given. */
export function scoreOption(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const x = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(x) || x < 0 || x > 1) throw new UsageError(`${flag} takes a score between 0 and 1, got "${raw}"`);
  return x;
}

/** Writes a report file named by an option (its folder made when missing); says so on stderr. */
export async function writeCiFile(flag: string, raw: string, text: string, io: Io): Promise<void> {
  const file = pathOption(flag, raw, io.cwd);
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, text);
  io.err(`agent-seer: wrote ${flag.replace(/^--/, '')} ${raw}`);
}

/**
 * `::error file=…::…` lines for the findings when `GITHUB_ACTIONS=true` (errors and warnings; notes
 * stay out of the job's annotations). On stdout, unless stdout carries JSON (`--json`): then on
 * stderr, so the JSON stays one parseable document (the runner reads workflow commands from both).
 */
export function printAnnotations(findings: readonly CiFinding[], io: Io, o: { json: boolean }): void {
  if (!inGithubActions(io.env)) return;
  const print = o.json ? io.err : io.out;
  for (const f of findings) if (f.level !== 'note') print(githubAnnotation(f, io.cwd));
}

/** Writes `--junit FILE`: the suites as one JUnit document, stamped now on this host. */
export function writeJunitFile(raw: string, suites: readonly JunitSuite[], io: Io): Promise<void> {
  return writeCiFile('--junit', raw, renderJunit(suites, { timestamp: new Date(), hostname: hostname() }), io);
}

/** A harness read back for its CI outputs: its records with the text of each record file (to place findings in). */
export async function judgedHarnessOf(dir: string, read: HarnessRead, spec: Spec | undefined): Promise<JudgedHarness> {
  const texts = new Map<string, string>();
  for (const file of read.files.values()) {
    const text = await readBoundedFile(file).catch(() => undefined);
    if (text !== undefined) texts.set(file, text);
  }
  return { dir, records: read.records, files: read.files, texts, ...(spec ? { spec } : {}) };
}

/**
 * The one place a gate decides the exit code: each missed bar is one line on stderr (red on a
 * terminal), and a missed one makes the exit {@link EXIT.gate}, apart from 1 (the command failed).
 * `passed` lines (a gate that says how it went even when it passes) are printed in green.
 */
export function gateExit(io: Io, missed: readonly string[], passed: readonly string[] = []): number {
  const paint = errPaint(io);
  for (const line of passed) io.err(`agent-seer: ${paint.ok(line)}`);
  for (const line of missed) io.err(`agent-seer: ${paint.bad(line)}`);
  return missed.length ? EXIT.gate : EXIT.ok;
}
