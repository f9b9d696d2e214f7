/**
 * One quota shared by commands (`src/core/llm/sharedQuota.ts`): the built CLI as separate
 * processes on one fake Gemini that allows 60 requests a minute (429 + Retry-After beyond) and
 * takes 300–800 ms per call, every command with `--rpm 60 --concurrency 4`:
 * - back to back: `generate` of redis-mcp-0.5.0.json (10 + 10), then `judge --judge gemini` of
 *   the harness it wrote (the same cache folder, so the same quota file);
 * - at once: that `generate` and a `judge --judge gemini` of another harness of the same spec
 *   (written offline beforehand), both given one `--cache-dir`.
 * Each is reported against the sliding-window floor of the requests the quota counted
 * (`bounds.ts`: ⌊(N−1)/60⌋ minutes plus a mean latency), with the server's 429 count (aim: 0,
 * within 1.15×).
 *
 * Environment (defaults in brackets): AGENT_SEER_BENCH_CLI [dist/cli.js]; AGENT_SEER_BENCH_QUOTA_RPM
 * [60]; AGENT_SEER_BENCH_QUOTA_LATENCY ["300-800" ms]; AGENT_SEER_BENCH_QUOTA_SHARED [1] — 0 gives
 * the second command a cache folder of its own, so each command keeps its own window as before
 * the shared quota (the "before" figures). `npm run build && npm run compile-tests && node
 * out/bench/quota.js`, or within `npm run bench` (AGENT_SEER_BENCH_QUOTA=0 skips it; about 8 minutes).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../src/core/llm';
import { loadSpecText } from '../src/core/spec/snapshot';
import { startFakeGemini } from '../test/fakes/fakeGemini';
import type { FakeReply } from '../test/fakes/fakeLlmServer';
import { quotaGate, type QuotaGate } from '../test/fakes/quotaGate';
import { cohReply, cohTurns, isCohPrompt, isTcPrompt, perfectTc, promptOf } from '../test/unit/judgeFixtures';
import { createResponder, stageOf } from '../test/unit/pipelineResponder';
import { repoRoot, specsDir } from '../test/unit/fixturePaths';
import { mean, windowFloorAtConcurrencyMs, windowFloorMs } from './bounds';
import type { BenchResult } from './foundation';

const env = (name: string, fallback: string): string => process.env[`AGENT_SEER_BENCH_QUOTA_${name}`] ?? fallback;
const SPEC = 'redis-mcp-0.5.0.json';

export async function runQuotaBench(): Promise<BenchResult[]> {
  const rpm = Number(env('RPM', '60'));
  const shared = env('SHARED', '1') !== '0';
  const [lo, hi] = env('LATENCY', '300-800').split('-').map(Number) as [number, number];
  const cliPath = process.env.AGENT_SEER_BENCH_CLI ?? join(repoRoot, 'dist', 'cli.js');
  const specFile = join(specsDir, SPEC);
  const load = loadSpecText(readFileSync(specFile, 'utf8'), specFile);
  if (!load.ok) throw new Error(`cannot load ${specFile}`);
  const responder = createResponder({ spec: load.spec });
  const fake = await startFakeGemini({ apiKey: 'bench-key' });
  const random = seededRandom(2027);
  let gate: QuotaGate = quotaGate({ limit: rpm, windowMs: 60_000 });
  const latencies: number[] = [];
  fake.respondWith((req): FakeReply => {
    const refused = gate.check(req);
    if (refused) return refused;
    const delayMs = Math.round(lo + (hi - lo) * random());
    latencies.push(delayMs);
    // Judge prompts first: a coherence reply's schema has `turns`, as stage 4's does.
    const p = promptOf(req);
    if (isTcPrompt(p)) return { json: perfectTc(p), usage: { input: 1000, output: 200 }, delayMs };
    if (isCohPrompt(p)) return { json: cohReply(cohTurns(p)), usage: { input: 500, output: 100 }, delayMs };
    if (stageOf(req) !== 'unknown') return { ...responder.respond(req), delayMs };
    return { status: 400, message: 'bench: neither a pipeline nor a judge request' };
  });
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bench-quota-'));
  const common = ['--base-url', fake.url, '--rpm', String(rpm), '--concurrency', '4', '--json'];
  const generate = (out: string, extra: string[] = []): string[] => [
    'generate',
    specFile,
    '--provider',
    'gemini',
    '--out',
    join(dir, out),
    ...common,
    ...extra,
  ];
  const judge = (harness: string, extra: string[] = []): string[] => ['judge', join(dir, harness), '--judge', 'gemini', ...common, ...extra];
  /** The built CLI as a process of its own, with only the key and PATH from the environment. */
  const cli = (args: string[]): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cliPath, ...args], {
        cwd: dir,
        env: { PATH: process.env.PATH, GEMINI_API_KEY: 'bench-key' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${args[0]} exited ${code}: ${err.split('\n').slice(-4).join(' | ')}`))));
    });
  /** Runs `scenario` against a fresh quota; the figures of the requests it made. */
  const measure = async (name: string, scenario: () => Promise<void>): Promise<BenchResult> => {
    gate = quotaGate({ limit: rpm, windowMs: 60_000 });
    latencies.length = 0;
    const t0 = Date.now();
    await scenario();
    const wallMs = Date.now() - t0;
    const counted = gate.accepted.length;
    const boundMs = windowFloorMs(counted, rpm, 60_000, mean(latencies));
    return {
      name,
      value: wallMs,
      unit: 'ms',
      bound: boundMs,
      ratio: wallMs / boundMs,
      note: `window floor ⌊(${counted}−1)/${rpm}⌋ min + ${mean(latencies).toFixed(0)} ms; at --concurrency 4 ${(windowFloorAtConcurrencyMs(counted, rpm, 60_000, mean(latencies), 4) / 1000).toFixed(1)} s; ${gate.rejected} server 429s${shared ? '' : ' (each command its own window: AGENT_SEER_BENCH_QUOTA_SHARED=0)'}`,
    };
  };
  try {
    // A second harness of the same spec, written offline (no request), for the judge that runs alongside.
    await cli(['generate', specFile, '--provider', 'offline', '--out', join(dir, 'offline')]);
    const backToBack = await measure(`generate then judge (gemini) of its harness, ${SPEC}, at ${rpm} rpm, ${lo}–${hi} ms/call`, async () => {
      await cli(generate('seq'));
      await cli(judge('seq', shared ? [] : ['--cache-dir', join(dir, 'seq-judge-cache')]));
    });
    const atOnce = await measure(`generate and judge (gemini) of another harness at once, ${SPEC}, at ${rpm} rpm, ${lo}–${hi} ms/call`, async () => {
      await Promise.all([
        cli(generate('par', ['--cache-dir', join(dir, 'cache-a')])),
        cli(judge('offline', ['--cache-dir', join(dir, shared ? 'cache-a' : 'cache-b')])),
      ]);
    });
    return [backToBack, atOnce];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void runQuotaBench()
    .then((results) => {
      for (const r of results)
        process.stdout.write(
          `${r.name}: ${(r.value / 1000).toFixed(1)} s  ratio ${r.ratio?.toFixed(2)} (bound ${((r.bound ?? 0) / 1000).toFixed(1)} s)  — ${r.note}\n`,
        );
    })
    .catch((err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
