/**
 * Resume after a kill repeats no paid-for call: the built CLI (`dist/cli.js generate`) against a
 * fake Gemini with latency and scripted validation failures (about half of the items get broken
 * JSON first, so conversations span re-asks), killed at a random point (SIGKILL and SIGINT
 * alternately) and resumed, over several trials. Reported: calls of the resumed runs that repeat
 * a call whose reply the server had finished sending before the kill (must be 0), counted with
 * the grace window of `ARRIVAL_GRACE_MS` for the reply to reach the disk and also without it.
 *
 * Environment (defaults in brackets): AGENT_SEER_BENCH_RESUME_TRIALS [20],
 * AGENT_SEER_BENCH_RESUME_SPEC [slack.json], AGENT_SEER_BENCH_RESUME_LATENCY ["30-120" ms].
 * Needs `npm run build` (run it with `npm run bench`, or `node out/bench/resume.js` after building).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../src/core/llm';
import { loadSpecText } from '../src/core/spec/snapshot';
import { startFakeGemini } from '../test/fakes/fakeGemini';
import { repoRoot, specsDir } from '../test/unit/fixturePaths';
import { ARRIVAL_GRACE_MS, killResumeTrial, reaskingResponder, type TrialResult } from '../test/unit/killResume';
import { createResponder } from '../test/unit/pipelineResponder';
import type { BenchResult } from './foundation';

const env = (name: string, fallback: string): string => process.env[`AGENT_SEER_BENCH_RESUME_${name}`] ?? fallback;

export async function runResumeBench(): Promise<BenchResult[]> {
  const trials = Number(env('TRIALS', '20'));
  const specFile = join(specsDir, env('SPEC', 'slack.json'));
  const [lo, hi] = env('LATENCY', '30-120').split('-').map(Number) as [number, number];
  const cli = join(repoRoot, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const load = loadSpecText(readFileSync(specFile, 'utf8'), specFile);
  if (!load.ok) throw new Error(`cannot load ${specFile}`);
  const random = seededRandom(7);
  const fake = await startFakeGemini({ apiKey: 'bench-key' });
  fake.respondWith(reaskingResponder(createResponder({ spec: load.spec }), () => Math.round(lo + (hi - lo) * random())));
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bench-resume-'));
  const args = (out: string): string[] => [
    'generate',
    specFile,
    '--provider',
    'gemini',
    '--base-url',
    fake.url,
    '--simple',
    '4',
    '--complex',
    '4',
    '--out',
    out,
    '--json',
  ];
  const childEnv = { ...process.env, GEMINI_API_KEY: 'bench-key' };
  try {
    // One uninterrupted run gives the span the kills are drawn from.
    const t0 = Date.now();
    const base = await killResumeTrial({
      fake,
      cli,
      args: args(join(dir, 'base')),
      env: childEnv,
      signal: 'SIGINT',
      killWhen: () => new Promise(() => undefined),
    });
    const span = Date.now() - t0;
    const baseCalls = base.firstRequests;
    const results: TrialResult[] = [];
    for (let i = 0; i < trials; i++) {
      const signal = i % 2 === 0 ? 'SIGKILL' : 'SIGINT';
      // Anywhere from the first calls to near the end of an uninterrupted run (process start included).
      const at = Math.round(span * (0.15 + 0.7 * random()));
      const r = await killResumeTrial({
        fake,
        cli,
        args: args(join(dir, `t${i}`)),
        env: childEnv,
        signal,
        killWhen: (start) => new Promise((res) => setTimeout(res, Math.max(0, start + at - Date.now()))),
      });
      if (r.resumedExit !== 0) throw new Error(`trial ${i}: the resumed run exited ${r.resumedExit}: ${r.resumedStderr.split('\n').slice(-3).join(' | ')}`);
      results.push(r);
      if (process.env.AGENT_SEER_BENCH_VERBOSE)
        process.stderr.write(`trial ${i} ${signal} at ${at} ms: ${JSON.stringify({ ...r, resumedStderr: undefined })}\n`);
    }
    const sum = (f: (r: TrialResult) => number): number => results.reduce((a, r) => a + f(r), 0);
    const repeated = sum((r) => r.repeated);
    const strict = sum((r) => r.repeatedStrict);
    const arrived = sum((r) => r.answeredBeforeKill);
    const resumed = sum((r) => r.resumedRequests);
    const gaps = results.flatMap((r) => r.inFlightGapsMs);
    const total = sum((r) => r.firstRequests + r.resumedRequests);
    return [
      {
        name: `resume after a kill (${trials} trials, SIGKILL/SIGINT, ${load.spec.name}, ${lo}–${hi} ms/call, ~half the items re-asked)`,
        value: repeated,
        unit: 'repeated calls',
        note: `${arrived} replies had arrived before the kills (more than ${ARRIVAL_GRACE_MS} ms before); ${strict} repeats counting every reply sent before the kill${gaps.length ? ` (their answers left the server ${Math.min(...gaps)}–${Math.max(...gaps)} ms before it)` : ''}; resumed runs made ${resumed} calls; first + resumed runs ${(total / Math.max(1, trials)).toFixed(1)} calls per trial vs ${baseCalls} for an uninterrupted run (${(total / Math.max(1, trials) / Math.max(1, baseCalls)).toFixed(2)}×)`,
      },
    ];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void runResumeBench()
    .then((results) => {
      for (const r of results) process.stdout.write(`${r.name}: ${r.value} ${r.unit}${r.note ? `  — ${r.note}` : ''}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
