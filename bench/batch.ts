/**
 * Batch versus synchronous mode on one fixture, through the CLI and the real `@google/genai`
 * client against the fake Gemini (synchronous route and batch API on one port), answered by the
 * unit tests' cooperative model: `node out/bench/batch.js [spec.json] [--simple N] [--complex N]
 * [--latency MS] [--openai]`. Prints one JSON line per mode and a last line with the ratios.
 *
 * What it measures: wall time, calls (synchronous requests or batch items), accepted records, and
 * price per accepted record at the built-in price table's synchronous and batch prices. The fake
 * answers a synchronous call after `--latency` ms (default 400, a typical Flash-Lite round trip
 * for these prompts) and ends a batch job after two polls 20 ms apart, so the batch wall time here
 * is the engine's own overhead (rounds, quiet windows, polls), not the provider's queue: real jobs
 * take minutes to hours, which docs/benchmarks.md says beside the figures.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_IN_PRICES, costOf, priceOf } from '../src/core/llm/pricing';
import { loadSpecText } from '../src/core/spec/snapshot';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../test/fakes/fakeLlmServer';
import { startFakeGeminiBatch } from '../test/fakes/fakeGeminiBatch';
import { startFakeOpenAIBatch } from '../test/fakes/fakeOpenAIBatch';
import { cli } from '../test/unit/cliRunner';
import { specsDir } from '../test/unit/fixturePaths';
import { createResponder } from '../test/unit/pipelineResponder';

const KEY = 'bench-key';

interface ModeFigures {
  mode: 'sync' | 'batch';
  status: string;
  wallMs: number;
  /** Synchronous requests, or items of batch jobs. */
  calls: number;
  jobs: number;
  records: number;
  inputTokens: number;
  outputTokens: number;
  usd: number | null;
  usdPerRecord: number | null;
}

async function runMode(
  mode: 'sync' | 'batch',
  specFile: string,
  client: 'gemini' | 'openai',
  o: { simple: number; complex: number; latency: number },
): Promise<ModeFigures> {
  const loaded = loadSpecText(await readFile(specFile, 'utf8'), specFile);
  if (!loaded.ok) throw new Error(loaded.problem.message);
  const responder = createResponder({ spec: loaded.spec });
  const fake: FakeLlmServer & { batch: { jobs: readonly unknown[] } } =
    client === 'gemini' ? await startFakeGeminiBatch({ apiKey: KEY }) : await startFakeOpenAIBatch({ apiKey: KEY });
  fake.respondWith((req: FakeRequest): FakeReply => {
    const reply = responder.respond(req);
    // Latency only for synchronous calls: a batch item's time is its job's.
    return req.viaBatch === undefined && !('status' in reply) ? { ...reply, delayMs: o.latency } : reply;
  });
  const dir = await mkdtemp(join(tmpdir(), 'agent-seer-bench-batch-'));
  const model = client === 'gemini' ? 'gemini-2.5-flash-lite' : 'gpt-4o-mini';
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_SEER_BATCH_POLL_MS: '20' };
    if (client === 'gemini') Object.assign(env, { GEMINI_API_KEY: KEY, GEMINI_BASE_URL: fake.url });
    else Object.assign(env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.url });
    const args = [
      'generate',
      specFile,
      '--provider',
      client,
      '--model',
      model,
      '--out',
      join(dir, 'h'),
      '--simple',
      String(o.simple),
      '--complex',
      String(o.complex),
      '--json',
    ];
    const started = Date.now();
    const r = await cli(mode === 'batch' ? [...args, '--batch'] : args, dir, env);
    const wallMs = Date.now() - started;
    if (r.code !== 0) throw new Error(`${mode} run exited ${r.code}: ${r.err.split('\n').slice(-3).join(' / ')}`);
    const s = JSON.parse(r.out) as { status: string; records: number; llm: { calls: number; inputTokens: number; outputTokens: number } };
    const price = priceOf(BUILT_IN_PRICES, model, client);
    const usd = costOf(s.llm, price, mode);
    const calls = mode === 'batch' ? fake.requests.filter((q) => q.viaBatch !== undefined).length : s.llm.calls;
    return {
      mode,
      status: s.status,
      wallMs,
      calls,
      jobs: fake.batch.jobs.length,
      records: s.records,
      inputTokens: s.llm.inputTokens,
      outputTokens: s.llm.outputTokens,
      usd,
      usdPerRecord: usd === null || s.records === 0 ? null : usd / s.records,
    };
  } finally {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const value = (flag: string, fallback: number): number => {
    const i = args.indexOf(flag);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const spec = args.find((a) => a.endsWith('.json')) ?? 'illustrator-ie3jp-1.2.12.json';
  const client = args.includes('--openai') ? 'openai' : 'gemini';
  const o = { simple: value('--simple', 10), complex: value('--complex', 10), latency: value('--latency', 400) };
  void (async () => {
    const sync = await runMode('sync', join(specsDir, spec), client, o);
    process.stdout.write(`${JSON.stringify({ spec, client, ...o, ...sync })}\n`);
    const batch = await runMode('batch', join(specsDir, spec), client, o);
    process.stdout.write(`${JSON.stringify({ spec, client, ...o, ...batch })}\n`);
    const ratio = (a: number | null, b: number | null): number | null => (a === null || b === null || b === 0 ? null : Math.round((a / b) * 1000) / 1000);
    process.stdout.write(
      `${JSON.stringify({ ratio: 'batch/sync', wall: ratio(batch.wallMs, sync.wallMs), usdPerRecord: ratio(batch.usdPerRecord, sync.usdPerRecord), records: ratio(batch.records, sync.records) })}\n`,
    );
  })().catch((e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
