/**
 * Generation under a rate limit: `agent-seer generate` (the real CLI, the real Gemini client)
 * for redis-mcp-0.5.0.json (47 tools) against a fake Gemini that takes 300–800 ms per call and
 * enforces 60 requests per minute (429 + Retry-After beyond that), with our `--rpm 60`.
 *
 * Reported against the lower bound of any scheduler:
 *   max(LLM calls ÷ rate limit, longest chain of dependent calls × mean latency)
 * (a ratio ≤ 1.2 means the pipeline keeps the rate budget busy), plus LLM calls and tokens per
 * accepted record, and the call count of an unchanged re-run (0).
 *
 * Size and shape via environment (defaults in brackets): AGENT_SEER_BENCH_GEN_SIMPLE [10],
 * AGENT_SEER_BENCH_GEN_COMPLEX [10], AGENT_SEER_BENCH_GEN_RPM [60],
 * AGENT_SEER_BENCH_GEN_LATENCY ["300-800" ms], AGENT_SEER_BENCH_GEN_SPEC [redis-mcp-0.5.0.json],
 * AGENT_SEER_BENCH_GEN_CONCURRENCY [4]. Set AGENT_SEER_BENCH_GEN=0 to skip it in `bench/run.ts`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../src/cli/main';
import type { Io } from '../src/cli/errors';
import { seededRandom } from '../src/core/llm';
import { loadSpecText } from '../src/core/spec/snapshot';
import { startFakeGemini } from '../test/fakes/fakeGemini';
import type { FakeReply } from '../test/fakes/fakeLlmServer';
import { createResponder } from '../test/unit/pipelineResponder';
import { specsDir } from '../test/unit/fixturePaths';
import type { BenchResult } from './foundation';

const env = (name: string, fallback: string): string => process.env[`AGENT_SEER_BENCH_GEN_${name}`] ?? fallback;

/** What one CLI run printed with --json. */
interface Summary {
  status: string;
  records: number;
  llm: { calls: number; cacheHits: number; retries: number; inputTokens: number; outputTokens: number };
  wallTimeMs: number;
  chainDepth: number;
  multiTurnRate: number | null;
  coverage: { ratio: number };
}

export async function runGenerateBench(): Promise<BenchResult[]> {
  const specFile = join(specsDir, env('SPEC', 'redis-mcp-0.5.0.json'));
  const simple = env('SIMPLE', '10');
  const complex = env('COMPLEX', '10');
  const rpm = Number(env('RPM', '60'));
  const concurrency = env('CONCURRENCY', '4');
  const [lo, hi] = env('LATENCY', '300-800').split('-').map(Number) as [number, number];
  const load = loadSpecText(readFileSync(specFile, 'utf8'), specFile);
  if (!load.ok) throw new Error(`cannot load ${specFile}`);
  const responder = createResponder({ spec: load.spec });

  const fake = await startFakeGemini({ apiKey: 'bench-key' });
  const random = seededRandom(2026);
  const arrivals: number[] = [];
  const latencies: number[] = [];
  let rejected = 0;
  fake.respondWith((req): FakeReply => {
    // The server's own per-minute window, as a real quota: beyond it, 429 + Retry-After.
    const now = req.receivedAt;
    while (arrivals.length && (arrivals[0] ?? 0) <= now - 60_000) arrivals.shift();
    if (arrivals.length >= rpm) {
      rejected++;
      return {
        status: 429,
        retryAfter: Math.max(1, Math.ceil(((arrivals[0] ?? now) + 60_000 - now) / 1000)),
        message: 'Resource has been exhausted (e.g. check quota).',
      };
    }
    arrivals.push(now);
    const delayMs = Math.round(lo + (hi - lo) * random());
    latencies.push(delayMs);
    return { ...responder.respond(req), delayMs };
  });

  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bench-gen-'));
  const argv = [
    'generate',
    specFile,
    '--provider',
    'gemini',
    '--base-url',
    fake.url,
    '--rpm',
    String(rpm),
    '--concurrency',
    concurrency,
    '--simple',
    simple,
    '--complex',
    complex,
    '--out',
    join(dir, 'out'),
    '--json',
  ];
  const cli = (): { io: Io; out: string[]; err: string[] } => {
    const out: string[] = [];
    const err: string[] = [];
    return {
      out,
      err,
      io: {
        out: (s) => out.push(s),
        err: (s) => (process.env.AGENT_SEER_BENCH_VERBOSE ? process.stderr.write(`${s}\n`) : err.push(s)),
        cwd: dir,
        env: { GEMINI_API_KEY: 'bench-key' },
      },
    };
  };
  try {
    const first = cli();
    const t0 = Date.now();
    const code = await run(argv, first.io);
    const wallMs = Date.now() - t0;
    if (code !== 0) throw new Error(`generate exited ${code}: ${first.err.slice(-3).join(' | ')}`);
    const s = JSON.parse(first.out.join('\n')) as Summary;
    const meanLatency = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
    const rateBoundMs = (s.llm.calls / rpm) * 60_000;
    const chainBoundMs = s.chainDepth * meanLatency;
    const boundMs = Math.max(rateBoundMs, chainBoundMs);

    const again = cli();
    const requestsBefore = fake.requests.length;
    if ((await run(argv, again.io)) !== 0) throw new Error('re-run failed');
    const s2 = JSON.parse(again.out.join('\n')) as Summary;

    const records = Math.max(1, s.records);
    const name = `generate ${load.spec.name} (${load.spec.tools.length} tools, --simple ${simple} --complex ${complex}) at ${rpm} rpm, ${lo}–${hi} ms/call`;
    return [
      {
        name,
        value: wallMs,
        unit: 'ms',
        baseline: boundMs,
        ratio: wallMs / boundMs,
        note: `lower bound max(${s.llm.calls} calls ÷ ${rpm}/min = ${(rateBoundMs / 1000).toFixed(1)} s, chain ${s.chainDepth} × ${meanLatency.toFixed(0)} ms = ${(chainBoundMs / 1000).toFixed(1)} s); ${s.records} records, coverage ${(s.coverage.ratio * 100).toFixed(0)}%, multi-turn ${s.multiTurnRate === null ? 'n/a' : `${(s.multiTurnRate * 100).toFixed(0)}%`}, ${s.llm.retries} retries, ${rejected} server 429s`,
      },
      { name: 'generate: LLM calls per accepted record', value: s.llm.calls / records, unit: 'calls', note: `${s.llm.calls} calls for ${s.records} records` },
      {
        name: 'generate: tokens per accepted record',
        value: (s.llm.inputTokens + s.llm.outputTokens) / records,
        unit: 'tokens',
        note: `${s.llm.inputTokens} in + ${s.llm.outputTokens} out`,
      },
      {
        name: 'generate: LLM calls of an unchanged re-run',
        value: s2.llm.calls,
        unit: 'calls',
        note: `${fake.requests.length - requestsBefore} requests reached the server; ${s2.llm.cacheHits} cache hits`,
      },
    ];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void runGenerateBench()
    .then((results) => {
      for (const r of results)
        process.stdout.write(
          `${r.name}: ${r.value.toFixed(2)} ${r.unit}${r.ratio !== undefined ? `  ratio ${r.ratio.toFixed(2)} (bound ${r.baseline?.toFixed(0)} ${r.unit})` : ''}${r.note ? `  — ${r.note}` : ''}\n`,
        );
    })
    .catch((err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
