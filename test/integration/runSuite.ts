/**
 * The mocha `run()` helper behind every integration suite (the standard VS Code test contract):
 * a suite's `index.ts` exports `run()` that calls `runSuite(__dirname)`.
 *
 * It loads the suite's compiled `*.test.js` files (recursively, sorted), runs them with mocha
 * (BDD: describe/it) inside the extension host, and WRITES a results JSON file
 *   { suite, done, passed, failed, pending, durationMs, tests: [{ title, state, durationMs?, error? }] }
 * to the path in `AGENT_SEER_TEST_RESULTS`: rewritten after each test with `done: false` (so a
 * driver that times out can tell which tests finished), and finally with `done: true` (set by scripts/test-integration.mjs on code-server,
 * or by scripts/test-electron.mjs through `extensionTestsEnv`). The host exits 0 even when tests
 * fail, so the driver decides from that file. `run()` also rejects when a test failed, which is
 * what @vscode/test-electron reads.
 */
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import Mocha from 'mocha';

/** The environment variable that names the results file. */
export const RESULTS_ENV = 'AGENT_SEER_TEST_RESULTS';

export type TestState = 'passed' | 'failed' | 'pending';

export interface TestResult {
  title: string;
  state: TestState;
  durationMs?: number;
  error?: string;
}

export interface SuiteResults {
  suite: string;
  /** false while the suite is still running. */
  done: boolean;
  passed: number;
  failed: number;
  pending: number;
  durationMs: number;
  tests: TestResult[];
}

export interface RunSuiteOptions {
  /** Per-test timeout (ms). Default 30 s, or `AGENT_SEER_TEST_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Only run tests whose full title matches (also `AGENT_SEER_TEST_GREP`). */
  grep?: string;
}

/** Compiled test files under `dir`, sorted so runs are repeatable. */
function findTestFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTestFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.test.js')) found.push(full);
  }
  return found.sort();
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

function writeResults(results: SuiteResults): void {
  const file = process.env[RESULTS_ENV];
  if (!file) {
    console.warn(`[runSuite] ${RESULTS_ENV} is not set: results are not written`);
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  // Write then rename: a reader never sees half a file.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(results, null, 2));
  renameSync(partial, file);
}

/** Run every `*.test.js` under `suiteDir` with mocha; write and return the results. */
export async function runSuite(suiteDir: string, options: RunSuiteOptions = {}): Promise<SuiteResults> {
  const started = Date.now();
  const suite = basename(suiteDir);
  const tests: TestResult[] = [];
  const envTimeout = Number(process.env.AGENT_SEER_TEST_TIMEOUT_MS);
  const grep = options.grep ?? process.env.AGENT_SEER_TEST_GREP;
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: options.timeoutMs ?? (Number.isFinite(envTimeout) && envTimeout > 0 ? envTimeout : 30_000),
    ...(grep ? { grep } : {}),
  });

  const summarize = (done: boolean): SuiteResults => ({
    suite,
    done,
    passed: tests.filter((t) => t.state === 'passed').length,
    failed: tests.filter((t) => t.state === 'failed').length,
    pending: tests.filter((t) => t.state === 'pending').length,
    durationMs: Date.now() - started,
    tests,
  });

  try {
    const files = findTestFiles(suiteDir);
    if (files.length === 0) throw new Error(`no *.test.js files under ${suiteDir}`);
    for (const f of files) mocha.addFile(f);
    console.log(`[runSuite] ${suite}: ${files.map((f) => relative(suiteDir, f)).join(', ')}`);

    await new Promise<void>((resolveRun) => {
      const runner = mocha.run(() => resolveRun());
      const record = (result: TestResult): void => {
        tests.push(result);
        writeResults(summarize(false));
      };
      runner.on('pass', (test) => {
        record({ title: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 });
      });
      runner.on('pending', (test) => {
        record({ title: test.fullTitle(), state: 'pending' });
      });
      // 'fail' also fires for hooks (before/after): those count as failures too.
      runner.on('fail', (test, err) => {
        record({ title: test.fullTitle(), state: 'failed', durationMs: test.duration ?? 0, error: errorText(err) });
      });
    });
  } catch (err) {
    tests.push({ title: `${suite}: loading the suite`, state: 'failed', error: errorText(err) });
  }

  const results = summarize(true);
  writeResults(results);
  console.log(`[runSuite] ${suite}: ${results.passed} passed, ${results.failed} failed, ${results.pending} pending`);
  if (results.failed > 0) {
    // @vscode/test-electron reads a rejected run() as a failed run.
    throw new Error(`${results.failed} test(s) failed in suite ${suite}`);
  }
  return results;
}
