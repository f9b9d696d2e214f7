/**
 * The GitHub Action (action.yml at the repository root), run here as the runner would run its
 * steps: the YAML parsed with the `yaml` package, `${{ inputs.x }}`, `${{ github.action_path }}`
 * and `${{ steps.<id>.outputs.<name> }}` substituted, each `run:` step given to
 * `bash --noprofile --norc -eo pipefail` (what `shell: bash` means on a runner) in order, with
 * GITHUB_ACTIONS=true and fresh GITHUB_OUTPUT / GITHUB_ENV files per step and one
 * GITHUB_STEP_SUMMARY, `if:` conditions evaluated, offline, on a fixture spec.
 *
 * What it does not run: `uses:` steps (actions/setup-node, actions/upload-artifact) are recorded
 * with their inputs, and the test asserts the files the upload names exist; and `npm ci` and
 * `npm run build` of the install step: the runs are given the `cli` input (the TypeScript-compiled
 * CLI of this test build, out/src/cli/main.js, not an esbuild bundle), and one test runs the
 * install step with a stand-in `npm` on PATH that records how it is called. The
 * HTML report still reads the page script from dist/ (`npm run build`, as `npm test` runs first).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { junitCases, junitErrors } from './ciValidation';
import { repoRoot, specsDir } from './fixturePaths';

interface ActionStep {
  name: string;
  id?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string>;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}

interface Action {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

interface StepResult {
  name: string;
  ran: boolean;
  code: number;
  stdout: string;
  stderr: string;
  /** A `uses:` step: its `with:` after substitution (it is not run). */
  with?: Record<string, string>;
}

interface ActionRun {
  steps: StepResult[];
  outputs: Record<string, string>;
  /** Each run step's outputs, by step id. */
  stepOutputs: Record<string, Record<string, string>>;
  summary: string;
  failed: boolean;
}

/** Reads `name=value` lines and `name<<DELIM` … `DELIM` blocks, as the runner reads GITHUB_OUTPUT. */
function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i]!);
      out[heredoc[1]!] = body.join('\n');
    } else if (line.includes('=')) out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return out;
}

/**
 * Runs action.yml's steps with the given inputs, in `workspace`; `only` runs just the steps it
 * names, with `outputs` as the step outputs earlier steps would have set.
 */
async function runAction(
  action: Action,
  given: Record<string, string>,
  workspace: string,
  o: { only?: RegExp; outputs?: Record<string, Record<string, string>>; env?: NodeJS.ProcessEnv } = {},
): Promise<ActionRun> {
  const inputs: Record<string, string> = {};
  for (const [k, v] of Object.entries(action.inputs)) inputs[k] = given[k] ?? v.default ?? '';
  for (const k of Object.keys(given)) assert.ok(k in action.inputs, `the action has an input ${k}`);
  const outputs: Record<string, Record<string, string>> = { ...o.outputs };
  /** A context reference; anything the action may not use here is an error, so the test notices it. */
  const ref = (expr: string): string => {
    const e = expr.trim();
    let m: RegExpExecArray | null;
    if ((m = /^inputs\.([\w-]+)$/.exec(e))) {
      assert.ok(m[1]! in inputs, `the action has an input ${m[1]}`);
      return inputs[m[1]!]!;
    }
    if (e === 'github.action_path') return repoRoot;
    if ((m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e))) return outputs[m[1]!]?.[m[2]!] ?? '';
    throw new Error(`an expression this test does not evaluate: ${e}`);
  };
  const substitute = (s: string): string => s.replace(/\$\{\{([^}]*)\}\}/g, (_, e: string) => ref(e));
  let failed = false;
  /** `if:`: `always()`, `success()`, `failure()`, `X == 'v'`, `X != 'v'`, joined by `&&`. */
  const condition = (raw: string | undefined): boolean => {
    const text = (raw ?? 'success()').replace(/^\$\{\{(.*)\}\}$/s, '$1').trim();
    const terms = text.split('&&').map((t) => t.trim());
    // As on a runner: without a status function, success() is implied.
    const status = terms.some((t) => /^(always|success|failure)\(\)$/.test(t)) ? [] : [!failed];
    return [
      ...status,
      ...terms.map((t) => {
        if (t === 'always()') return true;
        if (t === 'success()') return !failed;
        if (t === 'failure()') return failed;
        const m = /^(\S+)\s*(==|!=)\s*'([^']*)'$/.exec(t);
        if (!m) throw new Error(`a condition this test does not evaluate: ${t}`);
        return (ref(m[1]!) === m[3]) === (m[2] === '==');
      }),
    ].every(Boolean);
  };

  const files = await mkdtemp(join(tmpdir(), 'agent-seer-runner-'));
  const summaryFile = join(files, 'step_summary.md');
  await writeFile(summaryFile, '');
  const results: StepResult[] = [];
  try {
    for (const [i, step] of action.runs.steps.entries()) {
      if (o.only && !o.only.test(step.name)) continue;
      if (!condition(step.if)) {
        results.push({ name: step.name, ran: false, code: 0, stdout: '', stderr: '' });
        continue;
      }
      if (step.uses) {
        const w = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v))]));
        results.push({ name: step.name, ran: true, code: 0, stdout: '', stderr: '', with: w });
        continue;
      }
      assert.equal(step.shell, 'bash', `${step.name}: a composite run step names its shell`);
      const outputFile = join(files, `output-${i}`);
      const envFile = join(files, `env-${i}`);
      const script = join(files, `step-${i}.sh`);
      await Promise.all([writeFile(outputFile, ''), writeFile(envFile, ''), writeFile(script, substitute(step.run ?? ''))]);
      const env: NodeJS.ProcessEnv = {};
      for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GITHUB_') && !/_API_KEY$/.test(k)) env[k] = v;
      Object.assign(env, o.env, { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: outputFile, GITHUB_ENV: envFile, GITHUB_STEP_SUMMARY: summaryFile, NO_COLOR: '1' });
      for (const [k, v] of Object.entries(step.env ?? {})) env[k] = substitute(String(v));
      const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: workspace, env, encoding: 'utf8', maxBuffer: 64 << 20 });
      const code = r.status ?? 1;
      results.push({ name: step.name, ran: true, code, stdout: r.stdout, stderr: r.stderr });
      if (step.id) outputs[step.id] = parseOutputFile(await readFile(outputFile, 'utf8'));
      if (code !== 0) failed = true;
    }
    const actionOutputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, substitute(v.value)]));
    return { steps: results, outputs: actionOutputs, stepOutputs: outputs, summary: await readFile(summaryFile, 'utf8'), failed };
  } finally {
    await rm(files, { recursive: true, force: true });
  }
}

const step = (run: ActionRun, name: RegExp): StepResult => {
  const s = run.steps.find((x) => name.test(x.name));
  assert.ok(s, `a step named ${String(name)}`);
  return s;
};

describe('the GitHub Action (action.yml), its steps run locally', () => {
  let action: Action;
  let workspace: string;
  let shim: string;
  const spec = join(specsDir, 'git-official.json');

  before(async () => {
    action = parse(await readFile(join(repoRoot, 'action.yml'), 'utf8')) as Action;
    workspace = await mkdtemp(join(tmpdir(), 'agent-seer-action-'));
    // The `cli` input: this build's compiled CLI, so the install step does not run npm ci.
    shim = join(workspace, 'cli.js');
    await writeFile(shim, `require(${JSON.stringify(join(repoRoot, 'out', 'src', 'cli', 'main.js'))}).main();\n`);
  });
  after(async () => rm(workspace, { recursive: true, force: true }));

  it('is a composite action whose `uses:` are pinned to full commits, and whose inputs reach scripts only through env', () => {
    assert.equal(action.runs.using, 'composite');
    for (const s of action.runs.steps) {
      if (s.uses) assert.match(s.uses, /^actions\/[\w-]+@[0-9a-f]{40}$/, s.uses);
      // An input pasted into a script is shell code; through env: it is a value.
      if (s.run) assert.doesNotMatch(s.run, /\$\{\{/, `${s.name}: no expression inside run:`);
    }
    assert.ok(action.runs.steps.some((s) => s.uses?.startsWith('actions/upload-artifact@')));
  });

  it('the example workflow (examples/github-workflow.yml) gives only inputs the action has', async () => {
    const workflow = parse(await readFile(join(repoRoot, 'examples', 'github-workflow.yml'), 'utf8')) as {
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>;
    };
    const seer = Object.values(workflow.jobs)
      .flatMap((j) => j.steps)
      .find((s) => s.uses?.endsWith('/agent-seer@REF'));
    assert.ok(seer?.with);
    for (const k of Object.keys(seer.with)) assert.ok(k in action.inputs, `input ${k}`);
  });

  it('offline, with a gate that holds: generates, judges, reports; the summary has the scores and JUnit totals; outputs set; uploads exist', async () => {
    const run = await runAction(action, { spec, simple: '3', complex: '2', cli: shim, 'min-exact': '0.9', out: 'held' }, workspace);
    for (const s of run.steps.filter((x) => x.ran && !x.with)) assert.equal(s.code, 0, `${s.name}: ${s.stderr}`);
    assert.equal(run.failed, false);
    assert.equal(step(run, /^Snapshot/).ran, false, 'no mcp-config: no snapshot');
    assert.equal(step(run, /^Set up Node/).ran, false, 'a built CLI given: no Node set-up');

    assert.equal(run.outputs.harness, 'held/harness');
    assert.equal(run.outputs.report, 'held/report/report.html');
    assert.equal(run.outputs.junit, 'held/report/junit.xml');
    assert.match(run.outputs.exact ?? '', /^\d\.\d{4}$/);
    assert.ok(Number(run.outputs.exact) >= 0.9, 'the gate held on this score');
    const report = JSON.parse(await readFile(join(workspace, 'held/report/report.json'), 'utf8')) as { judges: { corpus: { exact: { mean: number } } }[] };
    assert.equal(run.outputs.exact, report.judges[0]!.corpus.exact.mean.toFixed(4));

    const xml = await readFile(join(workspace, run.outputs.junit), 'utf8');
    assert.deepEqual(await junitErrors(xml), []);
    const cases = junitCases(xml);
    assert.ok(cases.length >= 5);
    const failedCases = cases.filter((c) => c.failure).length;
    assert.match(run.summary, new RegExp(`\\| ${cases.length} \\| ${cases.length - failedCases} \\| ${failedCases} \\| 0 \\|`));
    const md = await readFile(join(workspace, 'held/report/report.md'), 'utf8');
    assert.ok(run.summary.includes(md.trim()), 'the Markdown report is in the summary');
    assert.doesNotMatch(run.summary, /A gate failed/);

    const upload = step(run, /^Upload/);
    assert.ok(upload.ran && upload.with);
    const paths = upload.with.path!.split('\n').filter((l) => l.trim());
    assert.equal(paths.length, 4);
    for (const p of paths) assert.ok(existsSync(join(workspace, p.trim())), `uploaded ${p} exists`);
    assert.match(step(run, /^Gates/).stdout, /every gate held/);
  });

  it('a gate that cannot hold fails only the last step: the report, summary and upload still happen', async () => {
    // TC needs an LLM judge: under the offline one --min-tc cannot pass.
    const run = await runAction(action, { spec, simple: '2', complex: '1', cli: shim, 'min-tc': '0.8', out: 'missed' }, workspace);
    assert.equal(run.failed, true);
    assert.equal(step(run, /^Report/).code, 0, step(run, /^Report/).stderr);
    const summary = step(run, /^Job summary/);
    assert.ok(summary.ran);
    assert.equal(summary.code, 0, summary.stderr);
    const upload = step(run, /^Upload/);
    assert.ok(upload.ran && upload.with);
    for (const p of upload.with.path!.split('\n').filter((l) => l.trim())) assert.ok(existsSync(join(workspace, p.trim())), `uploaded ${p} exists`);
    const gates = step(run, /^Gates/);
    assert.ok(gates.ran);
    assert.notEqual(gates.code, 0);
    assert.match(gates.stdout, /^::error::agent-seer: a score gate failed/m);
    assert.match(run.summary, /\*\*A gate failed\*\*/);
    assert.match(run.summary, /^- .*--min-tc 0\.8 cannot pass$/m);
    assert.equal(run.outputs.junit, 'missed/report/junit.xml');
  });

  it('from an MCP config: snapshots the server first; a second run given the first report.json has its "Since the previous report"', async () => {
    // A real stdio MCP server (the SDK's) in a .vscode/mcp.json, as a user's repository has it.
    const server = join(repoRoot, 'out', 'test', 'fixtures', 'servers', 'fixtureServer.js');
    await mkdir(join(workspace, '.vscode'), { recursive: true });
    await writeFile(
      join(workspace, '.vscode', 'mcp.json'),
      JSON.stringify({ servers: { fixture: { type: 'stdio', command: process.execPath, args: [server] }, other: { command: 'false' } } }),
    );
    const given = { 'mcp-config': '.vscode/mcp.json', server: 'fixture', simple: '2', complex: '1', cli: shim };
    const first = await runAction(action, { ...given, out: 'snap1' }, workspace);
    for (const s of first.steps.filter((x) => x.ran && !x.with)) assert.equal(s.code, 0, `${s.name}: ${s.stderr}`);
    assert.ok(step(first, /^Snapshot/).ran);
    assert.ok(existsSync(join(workspace, 'snap1', 'spec', 'fixture.json')), 'the snapshot');
    assert.ok(existsSync(join(workspace, 'snap1', 'harness', 'manifest.json')), 'the harness generated from it');
    assert.doesNotMatch(first.summary, /Since the previous report/);

    const second = await runAction(action, { ...given, out: 'snap2', previous: 'snap1/report/report.json', 'fail-on-regression': '0' }, workspace);
    for (const s of second.steps.filter((x) => x.ran && !x.with)) assert.equal(s.code, 0, `${s.name}: ${s.stderr}`);
    assert.equal(second.failed, false, 'the same offline harness again: nothing regressed');
    assert.match(second.summary, /## Since the previous report/);
    assert.match(second.summary, /No scenario changed/);
    assert.match(step(second, /^Report/).stderr, /--fail-on-regression 0: no scenario dropped/);
    const json = JSON.parse(await readFile(join(workspace, 'snap2', 'report', 'report.json'), 'utf8')) as { since?: { previous: string } };
    assert.equal(json.since?.previous, 'snap1/report/report.json');

    // The first run on a branch has no report of before: said, and nothing fails.
    const none = await runAction(action, { ...given, out: 'snap3', previous: 'nowhere/report.json', 'fail-on-regression': '0' }, workspace);
    assert.equal(none.failed, false);
    assert.match(step(none, /^Report/).stdout, /^::warning::agent-seer: no previous report at nowhere\/report\.json/m);
  });

  it('without the cli input, the install step runs npm ci and the build in the action folder and names dist/cli.js', async () => {
    // npm itself is not run here (it would install the whole tree): a stand-in on PATH records how it is called.
    const bin = join(workspace, 'fake-bin');
    const log = join(workspace, 'npm.log');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'npm'), `#!/bin/sh\necho "$PWD|$*" >> ${JSON.stringify(log)}\n`, { mode: 0o755 });
    const run = await runAction(action, {}, workspace, { only: /^Install and build/, env: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    assert.equal(run.steps[0]?.code, 0, run.steps[0]?.stderr);
    assert.deepEqual((await readFile(log, 'utf8')).trim().split('\n'), [`${repoRoot}|ci --no-audit --no-fund`, `${repoRoot}|run build`]);
    assert.equal(run.stepOutputs.cli?.path, join(repoRoot, 'dist', 'cli.js'));
  });

  it('the job summary of a report over 1 MiB is cut at a line and says so (GitHub keeps 1 MiB)', async () => {
    const md = join(workspace, 'big.md');
    const row = `| ${'x'.repeat(90)} |\n`;
    await writeFile(md, `# Agent Seer report\n\n${row.repeat(20_000)}`);
    const junit = join(workspace, 'big.xml');
    await writeFile(junit, '<testsuites>\n  <testsuite name="s" tests="3" failures="1" errors="0" skipped="1">\n  </testsuite>\n</testsuites>\n');
    const run = await runAction(action, { out: 'big' }, workspace, {
      only: /^Job summary/,
      outputs: { report: { markdown: md, junit, 'gate-exit': '0' } },
    });
    assert.equal(run.steps[0]?.code, 0, run.steps[0]?.stderr);
    assert.ok(Buffer.byteLength(run.summary) < 1024 * 1024, String(Buffer.byteLength(run.summary)));
    assert.match(run.summary, /\| 3 \| 1 \| 1 \| 1 \|/);
    assert.match(run.summary, /\| x{90} \|\n\n_The report is cut here \(the job summary holds 1 MiB\); all of it is in the agent-seer-report artifact\._\n$/);
  });

  it('without a spec or an MCP config, the generate step fails with one annotation and nothing after it runs', async () => {
    const run = await runAction(action, { cli: shim, out: 'none' }, workspace);
    assert.equal(run.failed, true);
    const gen = step(run, /^Generate/);
    assert.notEqual(gen.code, 0);
    assert.match(gen.stdout, /^::error::agent-seer action: give the spec input or mcp-config$/m);
    for (const name of [/^Judge/, /^Report/, /^Job summary/, /^Upload/, /^Gates/]) assert.equal(step(run, name).ran, false, String(name));
  });
});
