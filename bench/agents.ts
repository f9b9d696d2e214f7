/**
 * Running an agent on 200 scenarios under a provider's rate limit: `runHarness` (the engine of
 * `agent-seer run`) against a fake Gemini whose scripted agent replays the oracle with 300–800 ms
 * per reply and which enforces 60 requests per minute itself (429 + Retry-After beyond). Reported:
 * wall time over the sliding-window floor of the accepted requests (`bounds.ts`: ⌊(N−1)/rate⌋
 * windows plus a mean latency), aim ≤ 1.2.
 *
 * Environment (defaults in brackets): AGENT_SEER_BENCH_AGENT_SCENARIOS [200],
 * AGENT_SEER_BENCH_AGENT_SPEC [github-npm.json], AGENT_SEER_BENCH_AGENT_RPM [60],
 * AGENT_SEER_BENCH_AGENT_WINDOW_MS [60000] — a shorter window scales time down (latency with it)
 * and keeps the ratio's meaning, e.g. 6000 runs the same load in a tenth of the time.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userTurns } from '../src/core/agents/agentLoop';
import { runHarness } from '../src/core/agents/runHarness';
import type { HarnessRecord } from '../src/core/harness/format';
import { specHash } from '../src/core/harness/hash';
import { GeminiProvider, seededRandom } from '../src/core/llm';
import { generateOffline } from '../src/core/pipeline/offline';
import { loadSpecText } from '../src/core/spec/snapshot';
import { startFakeGemini } from '../test/fakes/fakeGemini';
import type { FakeReply } from '../test/fakes/fakeLlmServer';
import { geminiAgent, type AgentPlan } from '../test/fakes/scriptedAgent';
import { quotaGate } from '../test/fakes/quotaGate';
import { specsDir } from '../test/unit/fixturePaths';
import { mean, windowFloorMs } from './bounds';
import type { BenchResult } from './foundation';

const env = (name: string, fallback: string): string => process.env[`AGENT_SEER_BENCH_AGENT_${name}`] ?? fallback;

function oraclePlan(records: readonly HarnessRecord[]): AgentPlan {
  const byPrompt = new Map(records.map((r) => [userTurns(r)[0]!, r]));
  return (first, turn) => {
    const r = byPrompt.get(first);
    if (!r) return [];
    const idx = r.conversation.length ? (r.conversation[turn]?.calls ?? []) : turn === 0 ? r.expected_tools.map((_, i) => i) : [];
    return idx.map((i) => ({ name: r.expected_tools[i]!.name, arguments: r.expected_tools[i]!.arguments }));
  };
}

export async function runAgentsBench(): Promise<BenchResult[]> {
  const n = Number(env('SCENARIOS', '200'));
  const rpm = Number(env('RPM', '60'));
  const windowMs = Number(env('WINDOW_MS', '60000'));
  const scale = windowMs / 60_000;
  const specFile = join(specsDir, env('SPEC', 'github-npm.json'));
  const load = loadSpecText(readFileSync(specFile, 'utf8'), specFile);
  if (!load.ok) throw new Error(`cannot load ${specFile}`);
  // The scripted agent knows its scenario by the first user message: keep scenarios whose first
  // message is unique (the offline generator can word two alike).
  const seen = new Set<string>();
  const records = generateOffline(load.spec, { seed: 5, simple: n, complex: n })
    .records.filter((r) => {
      const first = userTurns(r)[0]!;
      if (seen.has(first)) return false;
      seen.add(first);
      return true;
    })
    .slice(0, n);
  if (records.length < n) throw new Error(`only ${records.length} scenarios generated`);

  const fake = await startFakeGemini({ apiKey: 'bench-key' });
  const agent = geminiAgent(oraclePlan(records));
  const random = seededRandom(11);
  // The provider's own window: beyond the quota, 429 with the wait it asks for.
  const gate = quotaGate({ limit: rpm, windowMs });
  const latencies: number[] = [];
  fake.respondWith((req): FakeReply => {
    const refused = gate.check(req);
    if (refused) return refused;
    const reply = agent(req);
    const delayMs = Math.round((300 + 500 * random()) * scale);
    latencies.push(delayMs);
    return { ...reply, delayMs };
  });
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bench-agents-'));
  try {
    const t0 = Date.now();
    const result = await runHarness({
      spec: load.spec,
      specHash: specHash(load.spec),
      records,
      provider: new GeminiProvider({ apiKey: 'bench-key', baseUrl: fake.url, model: 'gemini-2.5-flash' }),
      out: join(dir, 'runs'),
      // The client's window a little wider than the server's (as the product's margin does).
      limits: { concurrency: 4, rpm, rpmWindowMs: Math.round(windowMs * (61 / 60)) },
      signal: new AbortController().signal,
    });
    const wallMs = Date.now() - t0;
    const accepted = gate.accepted.length;
    const boundMs = windowFloorMs(accepted, rpm, windowMs, mean(latencies));
    if (result.summary.exactCallMatch !== 1) throw new Error(`the oracle agent scored ${result.summary.exactCallMatch}`);
    return [
      {
        name: `agent run: ${n} scenarios of ${load.spec.name}, oracle agent, ${Math.round(300 * scale)}–${Math.round(800 * scale)} ms per reply, ${rpm} requests per ${windowMs / 1000} s`,
        value: wallMs / 1000,
        unit: 's',
        bound: boundMs / 1000,
        ratio: wallMs / boundMs,
        note: `${accepted} requests accepted, ${gate.rejected} answered 429; bound = window floor ⌊(${accepted}−1)/${rpm}⌋ windows + ${mean(latencies).toFixed(0)} ms = ${(boundMs / 1000).toFixed(1)} s; exact call match ${result.summary.exactCallMatch}`,
      },
    ];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void runAgentsBench()
    .then((results) => {
      for (const r of results)
        process.stdout.write(
          `${r.name}: ${r.value.toFixed(1)} ${r.unit}  ratio ${r.ratio?.toFixed(2)} (bound ${r.bound?.toFixed(1)} ${r.unit})  — ${r.note}\n`,
        );
    })
    .catch((err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
