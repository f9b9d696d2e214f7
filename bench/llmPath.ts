/**
 * The LLM path on real fixture specs (`test/unit/llmPath.ts` measures one run):
 * `node out/bench/llmPath.js [spec.json…] [--openai] [--faults] [--smart | --free SEED] [--simple N] [--complex N]`
 * (specs are names in the shared fixtures; `--smart` answers with the cooperative responder of
 * the unit tests instead of the schema-only model, `--free SEED` with its free-choice twin). Prints one JSON line per run; docs/benchmarks.md
 * records the figures.
 */
import { measureLlmPath } from '../test/unit/llmPath';

if (require.main === module) {
  const args = process.argv.slice(2);
  const value = (flag: string, fallback: number): number => {
    const i = args.indexOf(flag);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const specs = args.filter((a, i) => a.endsWith('.json') && !/^--(simple|complex|free)$/.test(args[i - 1] ?? ''));
  void (async () => {
    for (const spec of specs.length ? specs : ['filesystem.json']) {
      const figures = await measureLlmPath(spec, {
        client: args.includes('--openai') ? 'openai' : 'gemini',
        faults: args.includes('--faults'),
        smart: args.includes('--smart'),
        ...(args.includes('--free') ? { free: value('--free', 1) } : {}),
        simple: value('--simple', 10),
        complex: value('--complex', 10),
      });
      process.stdout.write(`${JSON.stringify(figures)}\n`);
    }
  })().catch((e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
