/**
 * The LLM path on every fixture spec through the second, independent adversary: the schema-only
 * fake `../shared/tools/chaos-llm` (it fills every reply schema with seeded plausible values,
 * ignores prose, and injects faults and argument defects at set rates). The built CLI
 * (`dist/cli.js`, so `npm run build` first) generates each spec through the Gemini client, the
 * OpenAI wire and `--batch`, clean and with 10% of every fault and argument defect
 * (`--vary-repeats`, so a re-ask gets a new reply), then the offline judge and `report --json`
 * read the harness. One JSON line per run on stdout; `--md FILE` writes docs/benchmarks.md's table.
 *
 * `node out/bench/chaosCorpus.js [--clients gemini,openai,batch] [--modes clean,faults]
 *  [--specs a.json,b.json] [--simple 6] [--complex 6] [--md FILE]`
 *
 * The figures: status; the share of LLM items the model made; records per tier against the
 * request; coverage; discards by reason; unknown tools and invalid arguments in the records (the
 * report's exact checks); the exact judge's mean and value grounding; the estimate's range and
 * the calls made.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sharedDir, specsDir } from '../test/unit/fixturePaths';
import { loadSpecText } from '../src/core/spec/snapshot';
import { validateCall } from '../src/core/checks/validateCall';

const repo = resolve(__dirname, '..', '..');
const cli = join(repo, 'dist', 'cli.js');
const chaos = join(sharedDir, 'tools', 'chaos-llm', 'server.mjs');

/** 10% of every fault and argument defect the fake injects (the issue's adversary). */
const FAULTS = [
  '--vary-repeats',
  ...[
    'malformed-json',
    'schema-violation',
    'http-429',
    'wrong-param-name',
    'wrong-type',
    'extra-param',
    'bad-enum',
    'missing-required',
    'hallucinated-tool',
  ].flatMap((k) => [`--p-${k}`, '0.1']),
];

export interface ChaosRun {
  spec: string;
  /** Tools in the spec: with one, no scenario can be complex (two different tools), so its complex tier is not counted. */
  tools: number;
  client: string;
  mode: string;
  status: string;
  exitCode: number;
  modelMade: number;
  simple: number;
  complex: number;
  requested: { simple: number; complex: number };
  coverage: number;
  discarded: Record<string, number>;
  unknownToolCalls: number;
  invalidArguments: number;
  exact: number | null;
  grounding: number | null;
  estimate: { low: number; high: number } | null;
  calls: number;
}

async function startChaos(extra: readonly string[]): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [chaos, '--port', '0', '--seed', '1', '--batch-delay-ms', '50:200', ...extra], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((done, fail) => {
    let text = '';
    child.stdout.on('data', (b: Buffer) => {
      text += b.toString();
      const m = /listening (\S+)/.exec(text);
      if (m) done(m[1]!);
    });
    child.on('exit', () => fail(new Error('chaos-llm exited before listening')));
  });
  return { url, stop: () => child.kill() };
}

function cliJson(args: readonly string[], env: NodeJS.ProcessEnv): { code: number; json: unknown } {
  const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 20 * 60_000 });
  let json: unknown = undefined;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? -1, json };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the CLI's JSON, read loosely by a bench
type Json = Record<string, any>;

function measure(spec: string, client: string, mode: string, url: string, work: string, simple: number, complex: number): ChaosRun {
  const out = join(work, `${client}-${mode}`, spec.replace(/\.json$/, ''));
  const env = { ...process.env, GEMINI_API_KEY: 'k', OPENAI_API_KEY: 'k', AGENT_SEER_CACHE: join(work, `cache-${client}-${mode}`) };
  const provider = client === 'openai' ? ['--provider', 'openai', '--model', 'm'] : ['--provider', 'gemini'];
  const gen = cliJson(
    [
      'generate',
      join(specsDir, spec),
      ...provider,
      ...(client === 'batch' ? ['--batch'] : []),
      '--base-url',
      url,
      '--out',
      out,
      '--simple',
      String(simple),
      '--complex',
      String(complex),
      '--json',
    ],
    env,
  );
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Json;
  cliJson(['judge', out], env);
  const report = cliJson(['report', out, '--json'], env).json as Json | undefined;
  const server = report?.judges?.[0]?.servers?.[0] as Json | undefined;
  const items = manifest.items as Json | undefined;
  const e = manifest.cost?.estimate as Json | undefined;
  // Every call of every record against the spec: unknown tools and invalid arguments.
  const file = join(specsDir, spec);
  const loaded = loadSpecText(readFileSync(file, 'utf8'), file);
  let unknownToolCalls = 0;
  let invalidArguments = 0;
  for (const f of readdirSync(join(out, 'records')).filter((x) => x.endsWith('.json'))) {
    const rec = JSON.parse(readFileSync(join(out, 'records', f), 'utf8')) as { expected_tools: { name: string; arguments: Record<string, unknown> }[] };
    for (const c of rec.expected_tools) {
      const errors = loaded.ok ? validateCall(loaded.spec, c).errors : [];
      if (errors.some((x) => x.kind === 'unknown-tool')) unknownToolCalls++;
      else if (errors.length) invalidArguments++;
    }
  }
  return {
    spec,
    tools: loaded.ok ? loaded.spec.tools.length : 0,
    client,
    mode,
    status: manifest.status,
    exitCode: gen.code,
    modelMade: items?.total ? items.llm / items.total : 1,
    simple: manifest.counts.byTier.simple,
    complex: manifest.counts.byTier.complex,
    requested: manifest.requested,
    coverage: manifest.counts.coverage.ratio,
    discarded: manifest.counts.discarded,
    unknownToolCalls,
    invalidArguments,
    exact: server?.exact?.mean ?? null,
    grounding: server?.exactArguments?.grounding?.rate ?? null,
    estimate: e ? { low: e.calls, high: e.high?.calls ?? e.calls } : null,
    calls: manifest.tokens.calls,
  };
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** docs/benchmarks.md's table: one row per client and mode, the worst spec named. */
export function chaosTable(runs: readonly ChaosRun[]): string {
  const rows = [
    '| client | faults | complete | model-made (min) | tiers ≥ 90% | coverage 100% | unknown tools / invalid args | grounding (min) | range holds | worst spec |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const keys = [...new Set(runs.map((r) => `${r.client}|${r.mode}`))];
  for (const key of keys) {
    const rs = runs.filter((r) => `${r.client}|${r.mode}` === key);
    const [client, mode] = key.split('|');
    const tiers = rs.filter((r) => r.simple >= 0.9 * r.requested.simple && (r.tools < 2 || r.complex >= 0.9 * r.requested.complex)).length;
    const held = rs.filter((r) => r.estimate && r.calls >= r.estimate.low && r.calls <= r.estimate.high).length;
    const worst = [...rs].sort((a, b) => a.modelMade - b.modelMade || (a.grounding ?? 1) - (b.grounding ?? 1))[0];
    // A spec whose tools take no argument values has no grounding rate (null): not counted.
    const minGround = Math.min(...rs.flatMap((r) => (r.grounding === null ? [] : [r.grounding])));
    rows.push(
      `| ${client} | ${mode} | ${rs.filter((r) => r.status === 'complete').length}/${rs.length} | ${pct(Math.min(...rs.map((r) => r.modelMade)))} | ${tiers}/${rs.length} | ${rs.filter((r) => r.coverage === 1).length}/${rs.length} | ${rs.reduce((a, r) => a + r.unknownToolCalls, 0)} / ${rs.reduce((a, r) => a + r.invalidArguments, 0)} | ${minGround.toFixed(3)} | ${held}/${rs.length} | ${worst ? `${worst.spec} (${worst.status}, ${pct(worst.modelMade)} model-made, ${worst.simple}+${worst.complex} of ${worst.requested.simple}+${worst.requested.complex})` : ''} |`,
    );
  }
  return rows.join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (flag: string, fallback: string): string => {
    const i = args.indexOf(flag);
    return i >= 0 ? (args[i + 1] ?? fallback) : fallback;
  };
  const clients = opt('--clients', 'gemini,openai,batch').split(',');
  const modes = opt('--modes', 'clean,faults').split(',');
  const specs = opt('--specs', '') ? opt('--specs', '').split(',') : readdirSync(specsDir).filter((f) => f.endsWith('.json'));
  const simple = Number(opt('--simple', '6'));
  const complex = Number(opt('--complex', '6'));
  const md = opt('--md', '');
  void (async () => {
    const work = mkdtempSync(join(tmpdir(), 'agent-seer-chaos-'));
    const runs: ChaosRun[] = [];
    try {
      for (const mode of modes)
        for (const client of clients) {
          const fake = await startChaos(mode === 'faults' ? FAULTS : []);
          try {
            for (const spec of specs) {
              const run = measure(spec, client, mode, fake.url, work, simple, complex);
              runs.push(run);
              process.stdout.write(`${JSON.stringify(run)}\n`);
            }
          } finally {
            fake.stop();
          }
        }
      if (md) writeFileSync(md, `${chaosTable(runs)}\n`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  })().catch((e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
