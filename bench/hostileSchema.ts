/**
 * A 3.9 KB spec that used to exhaust `generate` (issue 18, item 3): thirty `$defs`, each an
 * `anyOf` of the next one and an object holding the next one (`anyOfChainSpec` in
 * `test/unit/hostileSchemas.ts`), 2^30 nodes expanded. Before the expansion budget, `generate
 * --simple 3 --complex 3` ran 196 s, reached 2.36 GB and died with `Invalid array length`. Reported:
 * the wall time and peak RSS of the built CLI on it, against the same run on the spec without the
 * chained tool (the baseline, same process setup), so the ratio shows what the hostile tool costs.
 *
 * Environment: AGENT_SEER_BENCH_CLI [dist/cli.js] runs another build (e.g. an older checkout's,
 * for the figure before a change); AGENT_SEER_BENCH_HOSTILE_TIMEOUT [120] seconds before the child
 * is killed (reported as such). Needs `npm run build` and `npm run compile-tests`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/unit/fixturePaths';
import { anyOfChainSpec } from '../test/unit/hostileSchemas';
import type { BenchResult } from './foundation';

interface Run {
  ms: number;
  rssMb: number | undefined;
  code: number | null;
  killed: boolean;
}

function generate(cli: string, spec: object, dir: string, name: string, timeoutS: number): Run {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(spec));
  const started = performance.now();
  const r = spawnSync(
    process.execPath,
    ['--require', join(__dirname, 'peakRss.js'), cli, 'generate', file, '--simple', '3', '--complex', '3', '--out', join(dir, name)],
    { encoding: 'utf8', timeout: timeoutS * 1000, killSignal: 'SIGKILL', env: { PATH: process.env.PATH } },
  );
  const ms = performance.now() - started;
  const kb = /peak-rss-kb (\d+)/.exec(r.stderr)?.[1];
  return { ms, rssMb: kb ? Number(kb) / 1024 : undefined, code: r.status, killed: r.signal !== null };
}

export function runHostileSchemaBench(): BenchResult[] {
  const cli = process.env.AGENT_SEER_BENCH_CLI ?? join(repoRoot, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const timeoutS = Number(process.env.AGENT_SEER_BENCH_HOSTILE_TIMEOUT ?? '120');
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bench-hostile-'));
  try {
    const chain = anyOfChainSpec() as { tools: { name: string }[] };
    const base = generate(cli, { tools: chain.tools.filter((t) => t.name !== 'walk_chain') }, dir, 'baseline', timeoutS);
    const hostile = generate(cli, chain, dir, 'chain', timeoutS);
    const outcome = hostile.killed ? `killed after ${timeoutS} s` : `exit ${hostile.code}`;
    return [
      {
        name: 'generate --simple 3 --complex 3, 3.9 KB anyOf chain of 30 $defs: wall time',
        value: hostile.ms,
        unit: 'ms',
        baseline: base.ms,
        ratio: hostile.ms / base.ms,
        note: `${outcome}; baseline: the same spec without the chained tool`,
      },
      {
        name: 'generate --simple 3 --complex 3, 3.9 KB anyOf chain of 30 $defs: peak RSS',
        value: hostile.rssMb ?? NaN,
        unit: 'MB',
        ...(base.rssMb !== undefined ? { baseline: base.rssMb, ratio: (hostile.rssMb ?? NaN) / base.rssMb } : {}),
        note: hostile.rssMb === undefined ? 'the child was killed before it could report' : 'baseline: the same spec without the chained tool',
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  for (const r of runHostileSchemaBench()) {
    const ratio = r.ratio !== undefined ? `  ratio ${r.ratio.toFixed(2)} (baseline ${r.baseline?.toFixed(1)} ${r.unit})` : '';
    process.stdout.write(`${r.name}: ${r.value.toFixed(1)} ${r.unit}${ratio}${r.note ? `  — ${r.note}` : ''}\n`);
  }
}
