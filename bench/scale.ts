/**
 * Offline generation and the offline judge as the spec grows: `agent-seer generate` (offline)
 * and `agent-seer judge` (offline) through the real CLI, in this process, on synthetic specs of
 * 250, 1,000, 4,000 and 20,000 tools (`bench/scaleSpec.ts`) and on a spec whose one parameter is
 * an enum of 100,000 values.
 *
 * Reported per size: milliseconds per tool (generate) and per record (judge); the figure of
 * merit is the ratio of the per-tool time at the largest size to the smallest. Linear work keeps
 * it near 1; the bound checked is `SCALE_RATIO_BOUND` (n·log n from 250 to 20,000 tools is about
 * 1.8; the quadratic generator of issue 18 was past 40).
 *
 * Also timed: the judge run again with nothing to do (bound `RERUN_BOUND_MS` at `RERUN_TOOLS`).
 *
 * Environment (defaults in brackets): AGENT_SEER_BENCH_SCALE_TOOLS ["250,1000,4000,20000"],
 * AGENT_SEER_BENCH_SCALE_ENUM [100000], AGENT_SEER_BENCH_SCALE_TIMEOUT_S [600, per command: a
 * command past it is cancelled and reported as such], AGENT_SEER_BENCH_SCALE_FIXTURE [none: a shared
 * fixture's file name, e.g. github-official-all.json, whose tools are repeated to each size instead
 * of the synthetic ones]. AGENT_SEER_BENCH_SCALE=0 skips it in
 * `bench/run.ts`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../src/cli/main';
import type { Io } from '../src/cli/errors';
import type { BenchResult } from './foundation';
import { specsDir } from '../test/unit/fixturePaths';
import { bigEnumSpec, cycledSpec, scaleSpec } from '../test/unit/scaleSpec';

const env = (name: string, fallback: string): string => process.env[`AGENT_SEER_BENCH_SCALE_${name}`] ?? fallback;

/** Largest accepted ratio of per-tool time, largest size ÷ smallest (see the module comment). */
export const SCALE_RATIO_BOUND = 2;

/** A judge re-run with every judgment current must take under RERUN_BOUND_MS at up to RERUN_TOOLS tools. */
export const RERUN_BOUND_MS = 2000;
export const RERUN_TOOLS = 1500;

/** One timed CLI command: its exit code, wall time and `--json` summary. */
async function timed(argv: string[], cwd: string, timeoutS: number): Promise<{ code: number; ms: number; json: Record<string, unknown> | undefined }> {
  const out: string[] = [];
  const io: Io = { out: (s) => out.push(s), err: () => undefined, cwd, env: {} };
  const t0 = process.hrtime.bigint();
  const code = await run([...argv, '--json'], io, AbortSignal.timeout(timeoutS * 1000));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(out.join('\n')) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { code, ms, json };
}

/** One row of the curve. */
export interface ScaleRow {
  label: string;
  tools: number;
  records: number;
  generateMs: number;
  judgeMs: number;
  /** The same judge again, with every judgment current: nothing to do. */
  rejudgeMs: number;
  generateStatus: string;
}

async function measure(dir: string, label: string, spec: Record<string, unknown>, timeoutS: number): Promise<ScaleRow> {
  const file = join(dir, `${label}.json`);
  writeFileSync(file, JSON.stringify(spec));
  const out = join(dir, `${label}-harness`);
  const gen = await timed(['generate', file, '--out', out], dir, timeoutS);
  const records = typeof gen.json?.records === 'number' ? gen.json.records : 0;
  const status = typeof gen.json?.status === 'string' ? gen.json.status : `exit ${gen.code}`;
  const judge = records > 0 ? await timed(['judge', out], dir, timeoutS) : { ms: Number.NaN };
  const rejudge = records > 0 ? await timed(['judge', out], dir, timeoutS) : { ms: Number.NaN };
  return { label, tools: (spec.tools as unknown[]).length, records, generateMs: gen.ms, judgeMs: judge.ms, rejudgeMs: rejudge.ms, generateStatus: status };
}

/** The curve as a Markdown table (what docs/benchmarks.md shows). */
export function scaleTable(rows: readonly ScaleRow[]): string {
  const lines = [
    '| spec | tools | records | generate (s) | ms per tool | judge (s) | ms per record | judge re-run (s) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.label} | ${r.tools} | ${r.records} | ${(r.generateMs / 1000).toFixed(1)}${r.generateStatus === 'complete' ? '' : ` (${r.generateStatus})`} | ${r.label.endsWith('tools') ? (r.generateMs / r.tools).toFixed(2) : '–'} | ${(r.judgeMs / 1000).toFixed(1)} | ${(r.judgeMs / Math.max(1, r.records)).toFixed(2)} | ${(r.rejudgeMs / 1000).toFixed(2)} |`,
    );
  return lines.join('\n');
}

export async function runScaleBench(): Promise<BenchResult[]> {
  const sizes = env('TOOLS', '250,1000,4000,20000')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  const enumSize = Number(env('ENUM', '100000'));
  const timeoutS = Number(env('TIMEOUT_S', '600'));
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bench-scale-'));
  try {
    const rows: ScaleRow[] = [];
    const fixture = env('FIXTURE', '');
    const snapshot = fixture ? (JSON.parse(readFileSync(join(specsDir, fixture), 'utf8')) as { tools?: unknown[] }) : undefined;
    for (const n of sizes)
      rows.push(await measure(dir, `${n} tools`, snapshot ? cycledSpec(snapshot, n, fixture.replace(/\.json$/, '')) : scaleSpec(n), timeoutS));
    if (enumSize > 0) rows.push(await measure(dir, `enum of ${enumSize}`, bigEnumSpec(enumSize), timeoutS));
    if (process.env.AGENT_SEER_BENCH_VERBOSE) process.stderr.write(`${scaleTable(rows)}\n`);
    const results: BenchResult[] = rows.map((r) => ({
      name: `offline generate + judge, ${r.label}`,
      ...(r.label.endsWith('tools') ? { value: r.generateMs / r.tools, unit: 'ms/tool' } : { value: r.generateMs, unit: 'ms' }),
      note: `${r.records} records (${r.generateStatus}); generate ${(r.generateMs / 1000).toFixed(1)} s; judge ${(r.judgeMs / 1000).toFixed(1)} s = ${(r.judgeMs / Math.max(1, r.records)).toFixed(2)} ms/record; re-run ${(r.rejudgeMs / 1000).toFixed(2)} s`,
    }));
    // Issue 25: a judge re-run with nothing to do, under 2 s at 1,500 tools (the largest size up to that).
    const rerun = rows.filter((r) => r.label.endsWith('tools') && r.tools <= RERUN_TOOLS).pop();
    if (rerun)
      results.push({
        name: `offline judge re-run with nothing to do, ${rerun.tools} tools`,
        value: rerun.rejudgeMs,
        unit: 'ms',
        ratio: rerun.rejudgeMs / RERUN_BOUND_MS,
        bound: 1,
        note: `${rerun.records} records; bound ${RERUN_BOUND_MS} ms at ${RERUN_TOOLS} tools (${rerun.rejudgeMs <= RERUN_BOUND_MS ? 'within' : 'OVER'})`,
      });
    const bySize = rows.filter((r) => sizes.includes(r.tools) && r.label.endsWith('tools'));
    const small = bySize[0];
    const large = bySize[bySize.length - 1];
    if (small && large && large !== small) {
      const genRatio = large.generateMs / large.tools / (small.generateMs / small.tools);
      const judgeRatio = large.judgeMs / Math.max(1, large.records) / (small.judgeMs / Math.max(1, small.records));
      results.push({
        name: `offline generate: ms per tool at ${large.tools} ÷ at ${small.tools} tools`,
        value: genRatio,
        unit: '×',
        ratio: genRatio,
        baseline: small.generateMs / small.tools,
        bound: SCALE_RATIO_BOUND,
        note: `bound ${SCALE_RATIO_BOUND} (${genRatio <= SCALE_RATIO_BOUND ? 'within' : 'OVER'})`,
      });
      results.push({
        name: `offline judge: ms per record at ${large.tools} ÷ at ${small.tools} tools`,
        value: judgeRatio,
        unit: '×',
        ratio: judgeRatio,
        baseline: small.judgeMs / Math.max(1, small.records),
        bound: SCALE_RATIO_BOUND,
        note: `bound ${SCALE_RATIO_BOUND} (${judgeRatio <= SCALE_RATIO_BOUND ? 'within' : 'OVER'})`,
      });
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  process.env.AGENT_SEER_BENCH_VERBOSE ??= '1';
  void runScaleBench()
    .then((results) => {
      for (const r of results) process.stdout.write(`${r.name}: ${r.value.toFixed(2)} ${r.unit}${r.note ? `  — ${r.note}` : ''}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
