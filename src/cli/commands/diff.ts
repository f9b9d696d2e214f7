import { diffFolders, DiffInputError, regressionGate, renderDiffText } from '../../core/report/diff';
import { EXIT, UsageError, type Io } from '../errors';
import { pathOption } from '../options';
import { gateExit } from '../ciOutputs';
import type { OptionTable, Parsed } from '../command';

/** `diff --format` values. */
const FORMATS = ['md', 'json'] as const;

/**
 * `agent-seer diff <A> <B> [--judge ID] [--fail-on-regression X] [--format md|json]`: prints what
 * `core/report/diff.ts` found; the gate's line goes to stderr so stdout stays the report.
 */
export async function diffCommand(args: { a?: string; b?: string; judge?: string; failOn?: string; format: string }, io: Io): Promise<number> {
  if (args.a === undefined || args.b === undefined) throw new UsageError('diff needs two folders: agent-seer diff <A> <B>');
  if (!(FORMATS as readonly string[]).includes(args.format)) throw new UsageError(`--format takes md or json, got "${args.format}"`);
  let bar: number | undefined;
  if (args.failOn !== undefined) {
    bar = Number(args.failOn);
    if (args.failOn.trim() === '' || !Number.isFinite(bar) || bar < 0 || bar > 1)
      throw new UsageError(`--fail-on-regression takes a score drop between 0 and 1, got "${args.failOn}"`);
  }
  const dirA = pathOption('A', args.a, io.cwd);
  const dirB = pathOption('B', args.b, io.cwd);
  let model;
  try {
    model = await diffFolders({ a: args.a, b: args.b, dirA, dirB, cwd: io.cwd, ...(args.judge !== undefined ? { judge: args.judge } : {}) });
  } catch (e) {
    if (e instanceof DiffInputError) throw new UsageError(e.message);
    throw e;
  }
  for (const p of model.problems) io.err(`agent-seer: ${p}`);
  io.out(args.format === 'json' ? JSON.stringify(model, null, 2) : renderDiffText(model));
  if (bar === undefined) return EXIT.ok;
  const gate = regressionGate(model, bar);
  for (const o of gate.offenders) io.err(`agent-seer:   ${o}`);
  return gate.failed ? gateExit(io, [gate.line]) : gateExit(io, [], [gate.line]);
}

/** The option table of `agent-seer diff`. */
export const options = {
  judge: { type: 'string' },
  'fail-on-regression': { type: 'string' },
  format: { type: 'string', default: 'md' },
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer diff <A> <B> [--judge ID] [--fail-on-regression X] [--format md|json]
                                             what got worse and better between two judged
                                             harnesses or two agent runs; new and vanished
                                             scenarios, spec changes; a CI gate`;

/** `agent-seer diff --help`. */
export const usage = `Usage: agent-seer diff <A> <B> [--judge ID] [--fail-on-regression X] [--format md|json]

Compares two judged harness folders (the same spec before and after a change, generated and
judged again) or two agent runs (<harness-dir>/runs/<agent>/<run> folders, as agent-seer run
writes them). Scenarios are paired by record id, then by title (ids change when a harness is
regenerated); the output says which were paired how.

For harnesses, per scenario and per view (the single-turn task, and the conversation of a
scenario that has one: its scores are named "conversation tc", …): TC and Coh (when an LLM judge
ran), the exact score, the share of argument values the user's words and outputs determine and
the count of determinacy findings; and the pass/fail verdict; the tools added, removed and changed between the two specs, and per
scenario the changed tools it calls. For runs: the call score, pass/fail and the failing calls.
Changed scenarios are listed worst regression first, then scenarios new in B and vanished from A.

Options:
  --judge ID                the judge whose scores to compare (default: a judge both used, an
                            LLM judge before the offline one)
  --fail-on-regression X    exit 6 when any scenario's score (0–1) dropped by more than X, or a
                            scenario that passed in A fails in B; one line says which and by how much
  --format md|json          output format (default md; json follows schemas/diff.schema.json)
  -h, --help                this text

Exit 0; 6 when the --fail-on-regression gate fails; 2 on bad input (a folder that is neither a
harness nor a run, a harness and a run, an unknown --judge, a harness being written).`;

/** Runs `diff` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io): Promise<number> {
  if (positionals.length > 2) throw new UsageError('diff takes two folders: agent-seer diff <A> <B>');
  return diffCommand({ a: positionals[0], b: positionals[1], judge: values.judge, failOn: values['fail-on-regression'], format: values.format }, io);
}
