/** Runs every benchmark in one process and prints a table (and JSON with --json). */
import { existsSync } from 'node:fs';
import { specsDir } from '../test/unit/fixturePaths';
import { runAgentsBench } from './agents';
import { runBundlesBench } from './bundles';
import { runFoundationBench, type BenchResult } from './foundation';
import { runGenerateBench } from './generate';
import { runHostileBench } from './hostile';
import { runHostileSchemaBench } from './hostileSchema';
import { runMaskingBench } from './masking';
import { runQuotaBench } from './quota';
import { runResumeBench } from './resume';
import { runScaleBench } from './scale';

async function main(): Promise<void> {
  // The shared fixtures (../shared beside the clone, or AGENT_SEER_SHARED): say so before any bench fails on ENOENT.
  if (!existsSync(specsDir)) throw new Error(`no shared fixtures at ${specsDir}: put the shared folder beside the clone or set AGENT_SEER_SHARED to it`);
  const results: BenchResult[] = [...(await runFoundationBench()), ...runMaskingBench()];
  // `--help` against `node -e 0`, and the .vsix's size (about 15 s); AGENT_SEER_BENCH_BUNDLES=0 skips it.
  if (process.env.AGENT_SEER_BENCH_BUNDLES !== '0') results.push(...runBundlesBench());
  // The hostile anyOf chain through the built CLI (seconds), and every hostile input of issue 18 with a
  // cancel trial each (a few minutes: 20,000 tools); AGENT_SEER_BENCH_HOSTILE=0 skips both.
  if (process.env.AGENT_SEER_BENCH_HOSTILE !== '0') results.push(...runHostileSchemaBench(), ...(await runHostileBench()));
  // A few minutes under a 60/min rate limit; AGENT_SEER_BENCH_GEN=0 skips it.
  if (process.env.AGENT_SEER_BENCH_GEN !== '0') results.push(...(await runGenerateBench()));
  // Two commands on one 60/min quota, back to back and at once, through the built CLI (about 8 minutes); AGENT_SEER_BENCH_QUOTA=0 skips it.
  if (process.env.AGENT_SEER_BENCH_QUOTA !== '0') results.push(...(await runQuotaBench()));
  // Kill/resume trials of the built CLI; AGENT_SEER_BENCH_RESUME=0 skips them.
  if (process.env.AGENT_SEER_BENCH_RESUME !== '0') results.push(...(await runResumeBench()));
  // Offline generate + judge from 250 to 20,000 tools and a 100,000-value enum (a few minutes); AGENT_SEER_BENCH_SCALE=0 skips it.
  if (process.env.AGENT_SEER_BENCH_SCALE !== '0') results.push(...(await runScaleBench()));
  // 200 scenarios of an agent under a 60/min limit (about 10 minutes); AGENT_SEER_BENCH_AGENT=0 skips it.
  if (process.env.AGENT_SEER_BENCH_AGENT !== '0') results.push(...(await runAgentsBench()));
  if (process.argv.includes('--json')) {
    process.stdout.write(JSON.stringify(results, null, 2) + '\n');
    return;
  }
  for (const r of results) {
    const against = r.bound !== undefined ? `bound ${r.bound.toFixed(1)}` : `baseline ${r.baseline?.toFixed(1)}`;
    const ratio = r.ratio !== undefined ? `  ratio ${r.ratio.toFixed(2)} (${against} ${r.unit})` : '';
    process.stdout.write(`${r.name}: ${r.value.toFixed(1)} ${r.unit}${ratio}${r.note ? `  — ${r.note}` : ''}\n`);
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
