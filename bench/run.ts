/** Runs every benchmark in one process and prints a table (and JSON with --json). */
import { runAgentsBench } from './agents';
import { runFoundationBench, type BenchResult } from './foundation';
import { runGenerateBench } from './generate';
import { runHostileSchemaBench } from './hostileSchema';
import { runResumeBench } from './resume';

async function main(): Promise<void> {
  const results: BenchResult[] = [...(await runFoundationBench())];
  // The hostile anyOf chain through the built CLI (seconds); AGENT_SEER_BENCH_HOSTILE=0 skips it.
  if (process.env.AGENT_SEER_BENCH_HOSTILE !== '0') results.push(...runHostileSchemaBench());
  // A few minutes under a 60/min rate limit; AGENT_SEER_BENCH_GEN=0 skips it.
  if (process.env.AGENT_SEER_BENCH_GEN !== '0') results.push(...(await runGenerateBench()));
  // Kill/resume trials of the built CLI; AGENT_SEER_BENCH_RESUME=0 skips them.
  if (process.env.AGENT_SEER_BENCH_RESUME !== '0') results.push(...(await runResumeBench()));
  // 200 scenarios of an agent under a 60/min limit (about 10 minutes); AGENT_SEER_BENCH_AGENT=0 skips it.
  if (process.env.AGENT_SEER_BENCH_AGENT !== '0') results.push(...(await runAgentsBench()));
  if (process.argv.includes('--json')) {
    process.stdout.write(JSON.stringify(results, null, 2) + '\n');
    return;
  }
  for (const r of results) {
    const ratio = r.ratio !== undefined ? `  ratio ${r.ratio.toFixed(2)} (baseline ${r.baseline?.toFixed(1)} ${r.unit})` : '';
    process.stdout.write(`${r.name}: ${r.value.toFixed(1)} ${r.unit}${ratio}${r.note ? `  — ${r.note}` : ''}\n`);
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
