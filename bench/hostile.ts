/**
 * The hostile inputs of issue 18 in one place, each through the built CLI as a process of its
 * own, as a user's shell would run it:
 *
 * - `redos`: `judge` of a record whose value is 34 `a`s and a `!` against `"pattern": "^(a+)+$"`
 *   (over 90 s with a backtracking engine);
 * - `anyof-chain`: `generate --simple 3 --complex 3` on the 3.9 KB spec of 30 `$defs` chained
 *   through `anyOf` (196 s and 2.36 GB, then a crash, before the expansion budget);
 * - `tools-20000`: offline `generate` then `judge` on 20,000 tools (past 300 s with 0 records);
 * - `enum-100k`: offline `generate` then `judge` on a parameter whose enum has 100,000 values;
 * - `linked-records`: `generate` into a harness whose `records/` is a link to `../..` and whose
 *   manifest lists `package` and `tsconfig` (it used to delete both at the repository root).
 *
 * Each case is run to its end (wall time, exit code, peak RSS through `peakRss.js`), then started
 * again and sent SIGINT part-way (`cancelAfterMs`): the time from the signal to the process's exit
 * is the cancellation figure, bounded by `CANCEL_BOUND_MS` (1 s). A command that ends before the
 * signal says so instead. `linked-records` also checks that the files at the root survive.
 *
 * Environment: AGENT_SEER_BENCH_CLI [dist/cli.js]; AGENT_SEER_BENCH_HOSTILE_LIMIT [600] seconds
 * before a child is killed (reported as such). Needs `npm run build` and `npm run compile-tests`.
 * `node out/bench/hostile.js` runs it alone; AGENT_SEER_BENCH_HOSTILE=0 skips it in `bench/run.ts`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/unit/fixturePaths';
import { anyOfChainSpec, HOSTILE_VALUE, REDOS_SPEC } from '../test/unit/hostileSchemas';
import { bigEnumSpec, scaleSpec } from '../test/unit/scaleSpec';
import type { BenchResult } from './foundation';

/**
 * When the cancel trial sends SIGINT: at 40% of the full run's time, and never before 1.5 s, by
 * when the CLI has loaded and handles signals itself (an earlier Ctrl-C ends Node at once, which
 * says nothing about our cancellation).
 */
const cancelAfterMs = (fullRunMs: number): number => Math.max(1500, Math.round(fullRunMs * 0.4));
/** The issue's bound: a cancelled command ends within a second of the signal. */
export const CANCEL_BOUND_MS = 1000;

interface Outcome {
  code: number | null;
  ms: number;
  rssMb: number | undefined;
  killed: boolean;
  stderr: string;
  /** Milliseconds from SIGINT to exit; undefined when the command ended before the signal. */
  cancelMs?: number;
}

/** Runs `node [peakRss] cli …args` in `cwd`; with `interruptAfterMs`, sends SIGINT then and times the exit. */
function runCli(cli: string, args: string[], cwd: string, limitS: number, interruptAfterMs?: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--require', join(__dirname, 'peakRss.js'), cli, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    let signalledAt: number | undefined;
    let killed = false;
    const interrupt =
      interruptAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            signalledAt = performance.now();
            child.kill('SIGINT');
          }, interruptAfterMs);
    const limit = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitS * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      const now = performance.now();
      clearTimeout(limit);
      if (interrupt) clearTimeout(interrupt);
      const kb = /peak-rss-kb (\d+)/.exec(stderr)?.[1];
      resolve({
        code,
        ms: now - started,
        rssMb: kb ? Number(kb) / 1024 : undefined,
        killed,
        stderr,
        ...(signalledAt !== undefined ? { cancelMs: now - signalledAt } : {}),
      });
    });
  });
}

/** A case: how to lay out its folder, and the commands it runs there (each timed and cancelled). */
interface Case {
  name: string;
  prepare(dir: string, cli: string, limitS: number): Promise<void>;
  commands: string[][];
  /** Checked after the full runs; a message when something is wrong. */
  verify?(dir: string): string | undefined;
}

const write = (file: string, value: unknown): void => writeFileSync(file, JSON.stringify(value));

const CASES: Case[] = [
  {
    name: 'redos',
    async prepare(dir, cli, limitS) {
      write(join(dir, 'spec.json'), REDOS_SPEC);
      await runCli(cli, ['generate', 'spec.json', '--out', 'h', '--simple', '2', '--complex', '0'], dir, limitS);
      const records = join(dir, 'h', 'records');
      const file = join(records, readdirSync(records).sort()[0]!);
      const record = JSON.parse(readFileSync(file, 'utf8')) as { expected_tools: { arguments: Record<string, unknown> }[] };
      record.expected_tools[0]!.arguments.code = HOSTILE_VALUE;
      write(file, record);
    },
    commands: [['judge', 'h']],
  },
  {
    name: 'anyof-chain',
    prepare: (dir) => Promise.resolve(write(join(dir, 'spec.json'), anyOfChainSpec())),
    commands: [['generate', 'spec.json', '--out', 'h', '--simple', '3', '--complex', '3']],
  },
  {
    name: 'tools-20000',
    prepare: (dir) => Promise.resolve(write(join(dir, 'spec.json'), scaleSpec(20_000))),
    commands: [
      ['generate', 'spec.json', '--out', 'h'],
      ['judge', 'h'],
    ],
  },
  {
    name: 'enum-100k',
    prepare: (dir) => Promise.resolve(write(join(dir, 'spec.json'), bigEnumSpec(100_000))),
    commands: [
      ['generate', 'spec.json', '--out', 'h'],
      ['judge', 'h'],
    ],
  },
  {
    name: 'linked-records',
    async prepare(dir, cli, limitS) {
      write(join(dir, 'spec.json'), REDOS_SPEC);
      writeFileSync(join(dir, 'package.json'), '{ "name": "victim" }\n');
      writeFileSync(join(dir, 'tsconfig.json'), '{}\n');
      mkdirSync(join(dir, 'evals'));
      await runCli(cli, ['generate', 'spec.json', '--out', join('evals', 'h'), '--simple', '2', '--complex', '0'], dir, limitS);
      const harness = join(dir, 'evals', 'h');
      const manifest = JSON.parse(readFileSync(join(harness, 'manifest.json'), 'utf8')) as { recordIds: string[] };
      manifest.recordIds.push('package', 'tsconfig');
      write(join(harness, 'manifest.json'), manifest);
      rmSync(join(harness, 'records'), { recursive: true });
      symlinkSync(join('..', '..'), join(harness, 'records'));
    },
    commands: [['generate', 'spec.json', '--out', join('evals', 'h'), '--simple', '2', '--complex', '0']],
    verify: (dir) => (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'tsconfig.json')) ? undefined : 'a file at the root was deleted'),
  },
];

export async function runHostileBench(): Promise<BenchResult[]> {
  const cli = process.env.AGENT_SEER_BENCH_CLI ?? join(repoRoot, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const limitS = Number(process.env.AGENT_SEER_BENCH_HOSTILE_LIMIT ?? '600');
  const results: BenchResult[] = [];
  for (const c of CASES) {
    // Two folders laid out alike: one for the full runs, one for the cancel trials.
    const full = mkdtempSync(join(tmpdir(), `agent-seer-hostile-${c.name}-`));
    const cancel = mkdtempSync(join(tmpdir(), `agent-seer-hostile-${c.name}-cancel-`));
    try {
      await c.prepare(full, cli, limitS);
      await c.prepare(cancel, cli, limitS);
      for (const args of c.commands) {
        const label = `${c.name}: ${args[0]}`;
        const run = await runCli(cli, args, full, limitS);
        const problem = c.verify?.(full);
        const lastLine =
          run.stderr
            .split('\n')
            .filter((l) => l.trim() && !l.startsWith('peak-rss-kb'))
            .pop() ?? '';
        results.push({
          name: `${label}: wall time`,
          value: run.ms,
          unit: 'ms',
          note: `${run.killed ? `killed after ${limitS} s` : `exit ${run.code}`}${run.rssMb !== undefined ? `, peak RSS ${run.rssMb.toFixed(0)} MB` : ''}${problem ? `; FAILED: ${problem}` : ''}${run.code !== 0 && lastLine ? `; "${lastLine.slice(0, 160)}"` : ''}`,
        });
        const at = cancelAfterMs(run.ms);
        const stopped = await runCli(cli, args, cancel, limitS, at);
        results.push(
          stopped.cancelMs === undefined
            ? {
                name: `${label}: SIGINT after ${at} ms`,
                value: stopped.ms,
                unit: 'ms',
                note: `ended by itself (exit ${stopped.code}) before the signal`,
              }
            : {
                name: `${label}: SIGINT after ${at} ms, signal to exit`,
                value: stopped.cancelMs,
                unit: 'ms',
                bound: CANCEL_BOUND_MS,
                ratio: stopped.cancelMs / CANCEL_BOUND_MS,
                note: `exit ${stopped.code ?? 'by the signal, not the CLI'}; bound ${CANCEL_BOUND_MS} ms${stopped.cancelMs > CANCEL_BOUND_MS ? ' — OVER THE BOUND' : ''}`,
              },
        );
        // The cancel trial's folder is now part-written: lay it out again for the next command.
        rmSync(cancel, { recursive: true, force: true });
        mkdirSync(cancel);
        await c.prepare(cancel, cli, limitS);
        if (args[0] === 'generate' && c.commands.length > 1) await runCli(cli, args, cancel, limitS);
      }
    } finally {
      rmSync(full, { recursive: true, force: true });
      rmSync(cancel, { recursive: true, force: true });
    }
  }
  return results;
}

if (require.main === module) {
  void runHostileBench().then((rows) => {
    for (const r of rows) {
      const ratio = r.ratio !== undefined ? `  ratio ${r.ratio.toFixed(2)} (bound ${r.bound?.toFixed(0)} ${r.unit})` : '';
      process.stdout.write(`${r.name}: ${r.value.toFixed(0)} ${r.unit}${ratio}${r.note ? `  — ${r.note}` : ''}\n`);
    }
  });
}
