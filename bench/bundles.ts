/**
 * What the bundles cost: `agent-seer --help` against `node -e 0` (both spawned alternately in this
 * process, the median of AGENT_SEER_BENCH_BUNDLES_RUNS [15] runs each; the bound is 2×, issue 25),
 * the bytes of each bundle in dist/, and the `.vsix` that `scripts/package.mjs` makes from them
 * (bound 3 MB; the build itself fails when one library lands in two bundles, see esbuild.mjs).
 *
 * `npm run build && npm run compile-tests && node out/bench/bundles.js`, or within `npm run bench`
 * (AGENT_SEER_BENCH_BUNDLES=0 skips it). AGENT_SEER_BENCH_CLI=<other dist/cli.js> times another
 * build's `--help`; AGENT_SEER_BENCH_VSIX=0 skips packaging (about 10 s).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchResult } from './foundation';
import { repoRoot } from '../test/unit/fixturePaths';

/** `--help` may take at most this many times a bare `node -e 0`. */
export const HELP_RATIO_BOUND = 2;
/** The packaged extension's size bound, bytes. */
export const VSIX_BOUND_BYTES = 3 * 1024 * 1024;

function timeSpawn(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export function runBundlesBench(): BenchResult[] {
  const cli = process.env.AGENT_SEER_BENCH_CLI ?? join(repoRoot, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const runs = Number(process.env.AGENT_SEER_BENCH_BUNDLES_RUNS ?? '15');
  const bare: number[] = [];
  const help: number[] = [];
  timeSpawn(['-e', '0']); // warm the file cache for both
  timeSpawn([cli, '--help']);
  for (let i = 0; i < runs; i++) {
    bare.push(timeSpawn(['-e', '0']));
    help.push(timeSpawn([cli, '--help']));
  }
  const b = median(bare);
  const h = median(help);
  const results: BenchResult[] = [
    {
      name: '`agent-seer --help` (median of spawned runs)',
      value: h,
      unit: 'ms',
      baseline: b,
      ratio: h / b,
      bound: HELP_RATIO_BOUND,
      note: `node -e 0: ${b.toFixed(1)} ms; ${runs} runs each; bound ${HELP_RATIO_BOUND}× (${h / b <= HELP_RATIO_BOUND ? 'within' : 'OVER'})`,
    },
  ];
  const dist = join(repoRoot, 'dist');
  const sizes = readdirSync(dist)
    .filter((f) => f.endsWith('.js'))
    .map((f) => `${f} ${(statSync(join(dist, f)).size / 1024).toFixed(0)} KB`);
  if (process.env.AGENT_SEER_BENCH_VSIX !== '0') {
    const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bench-vsix-'));
    try {
      const out = join(dir, 'agent-seer.vsix');
      const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'package.mjs'), '--out', out], { cwd: repoRoot, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`scripts/package.mjs failed: ${r.stderr || r.stdout}`);
      const bytes = statSync(out).size;
      results.push({
        name: 'the .vsix (scripts/package.mjs)',
        value: bytes / 1024 / 1024,
        unit: 'MB',
        ratio: bytes / VSIX_BOUND_BYTES,
        bound: 1,
        note: `bound 3 MB (${bytes <= VSIX_BOUND_BYTES ? 'within' : 'OVER'}); bundles: ${sizes.join(', ')}`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return results;
}

if (require.main === module) {
  try {
    for (const r of runBundlesBench()) process.stdout.write(`${r.name}: ${r.value.toFixed(2)} ${r.unit}${r.note ? `  — ${r.note}` : ''}\n`);
  } catch (err) {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
