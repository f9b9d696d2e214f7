/**
 * Generation under a rate limit: `agent-seer generate` (the real CLI, the real Gemini client)
 * for redis-mcp-0.5.0.json (47 tools) against a fake Gemini that takes 300–800 ms per call and
 * enforces 60 requests per minute (429 + Retry-After beyond that), with our `--rpm 60`.
 *
 * Reported against the lower bound of any scheduler (`bounds.ts`): the larger of the sliding-window
 * floor for the calls the quota counted (⌊(N−1)/60⌋ minutes plus a mean latency) and the longest
 * dependency chain × mean latency, the chain measured from the request times of the same
 * generation run once more without rate limit or concurrency cap. Also: LLM calls and tokens per
 * accepted record, the call count of an unchanged re-run (0), and the same generation without a
 * rate limit at `--concurrency` 4 and 16 (how much more work in flight buys).
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
import { quotaGate, type QuotaGate } from '../test/fakes/quotaGate';
import { createResponder } from '../test/unit/pipelineResponder';
import { specsDir } from '../test/unit/fixturePaths';
import { mean, measuredChain, windowFloorAtConcurrencyMs, windowFloorMs } from './bounds';
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
  /** The quota in force (the rate-limited run only). */
  let gate: QuotaGate | undefined;
  const latencyOf = new Map<number, number>();
  fake.respondWith((req): FakeReply => {
    // The server's own per-minute window, as a real quota: beyond it, 429 + Retry-After.
    const refused = gate?.check(req);
    if (refused) return refused;
    const delayMs = Math.round(lo + (hi - lo) * random());
    latencyOf.set(req.index, delayMs);
    return { ...responder.respond(req), delayMs };
  });

  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bench-gen-'));
  const argv = (out: string, flags: string[]): string[] => [
    'generate',
    specFile,
    '--provider',
    'gemini',
    '--base-url',
    fake.url,
    ...flags,
    '--simple',
    simple,
    '--complex',
    complex,
    '--out',
    join(dir, out),
    '--json',
  ];
  /** One CLI run in this process: its summary, wall time and the requests the fake saw meanwhile. */
  const cli = async (args: string[]): Promise<{ s: Summary; wallMs: number; requests: typeof fake.requests }> => {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = {
      out: (s) => out.push(s),
      err: (s) => (process.env.AGENT_SEER_BENCH_VERBOSE ? process.stderr.write(`${s}\n`) : err.push(s)),
      cwd: dir,
      env: { GEMINI_API_KEY: 'bench-key' },
    };
    const first = fake.requests.length;
    const t0 = Date.now();
    const code = await run(args, io);
    const wallMs = Date.now() - t0;
    if (code !== 0) throw new Error(`generate exited ${code}: ${err.slice(-3).join(' | ')}`);
    return { s: JSON.parse(out.join('\n')) as Summary, wallMs, requests: fake.requests.slice(first) };
  };
  try {
    // The dependency chain: the same generation with nothing holding a request back.
    const free = await cli(argv('free', ['--concurrency', '256']));
    const chain = measuredChain(free.requests);

    gate = quotaGate({ limit: rpm, windowMs: 60_000 });
    const limited = await cli(argv('out', ['--rpm', String(rpm), '--concurrency', concurrency]));
    const s = limited.s;
    const counted = gate.accepted.length;
    const rejected = gate.rejected;
    const meanLatency = mean(limited.requests.map((r) => latencyOf.get(r.index)).filter((v): v is number => v !== undefined));
    const windowMs = windowFloorMs(counted, rpm, 60_000, meanLatency);
    const chainMs = chain.length * meanLatency;
    const boundMs = Math.max(windowMs, chainMs);
    const atConcurrencyMs = Math.max(windowFloorAtConcurrencyMs(counted, rpm, 60_000, meanLatency, Number(concurrency)), chainMs);

    const requestsBefore = fake.requests.length;
    const again = await cli(argv('out', ['--rpm', String(rpm), '--concurrency', concurrency]));
    const rerunRequests = fake.requests.length - requestsBefore;
    gate = undefined;

    // Work in flight: the same generation without a rate limit at concurrency 4 and 16.
    const c4 = await cli(argv('c4', ['--concurrency', '4']));
    const c16 = await cli(argv('c16', ['--concurrency', '16']));

    const records = Math.max(1, s.records);
    const name = `generate ${load.spec.name} (${load.spec.tools.length} tools, --simple ${simple} --complex ${complex}) at ${rpm} rpm, ${lo}–${hi} ms/call`;
    return [
      {
        name,
        value: limited.wallMs,
        unit: 'ms',
        bound: boundMs,
        ratio: limited.wallMs / boundMs,
        note:
          `bound max(window floor ⌊(${counted}−1)/${rpm}⌋ min + ${meanLatency.toFixed(0)} ms = ${(windowMs / 1000).toFixed(1)} s, ` +
          `chain ${chain.length} × ${meanLatency.toFixed(0)} ms = ${(chainMs / 1000).toFixed(1)} s); ${s.llm.calls} calls, ${s.records} records, ` +
          `coverage ${(s.coverage.ratio * 100).toFixed(0)}%, multi-turn ${s.multiTurnRate === null ? 'n/a' : `${(s.multiTurnRate * 100).toFixed(0)}%`}, ` +
          `${s.llm.retries} retries, ${rejected} server 429s; at --concurrency ${concurrency} the floor is ${(atConcurrencyMs / 1000).toFixed(1)} s ` +
          `(ratio ${(limited.wallMs / atConcurrencyMs).toFixed(2)})`,
      },
      {
        name: 'generate: the same without rate limit or concurrency cap (the chain run)',
        value: free.wallMs,
        unit: 'ms',
        note: `${free.s.llm.calls} calls; longest chain ${chain.length} requests, ${(chain.ms / 1000).toFixed(1)} s of their own latency`,
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
        value: again.s.llm.calls,
        unit: 'calls',
        note: `${rerunRequests} requests reached the server; ${again.s.llm.cacheHits} cache hits`,
      },
      {
        name: 'generate without rate limit: --concurrency 16 speed-up over 4',
        value: c4.wallMs / c16.wallMs,
        unit: '×',
        note: `${(c4.wallMs / 1000).toFixed(1)} s at 4 (${c4.s.llm.calls} calls), ${(c16.wallMs / 1000).toFixed(1)} s at 16 (${c16.s.llm.calls} calls)`,
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
          `${r.name}: ${r.value.toFixed(2)} ${r.unit}${r.ratio !== undefined ? `  ratio ${r.ratio.toFixed(2)} (bound ${r.bound?.toFixed(0)} ${r.unit})` : ''}${r.note ? `  — ${r.note}` : ''}\n`,
        );
    })
    .catch((err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
