/**
 * Hostile schemas through the built CLI (issue 18, items 3 and 9): a 3.9 KB chain of `$defs`
 * that expands to 2^30 nodes must not exhaust `generate`, and `inspect` must name every schema no
 * value satisfies (or the generator cannot build) with its own code. The specs are built here;
 * the CLI runs as a child process with a hard kill timeout, so a regression fails instead of hanging.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { MAX_SAMPLE_DEPTH, MAX_SCHEMA_EXPANSION } from '../../../src/core/bounds';
import { repoRoot } from '../fixturePaths';
import { anyOfChainSpec, unsatisfiableSpec } from '../hostileSchemas';

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-hostile-schema-'));
  made.push(dir);
  return dir;
}
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

const bin = join(repoRoot, 'dist', 'cli.js');

/** The built CLI, killed after 30 s (the unfixed `generate` ran 196 s, then died out of memory). */
function runBin(args: string[], cwd: string): { code: number | null; out: string; err: string; signal: NodeJS.Signals | null } {
  assert.ok(existsSync(bin), 'npm run build first');
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL', env: { PATH: process.env.PATH } });
  return { code: r.status, out: r.stdout, err: r.stderr, signal: r.signal };
}

test('generate --simple 3 --complex 3 on a 3.9 KB anyOf chain of 30 $defs finishes, writes records and skips the tool with the reason', () => {
  const dir = tempDir();
  const text = JSON.stringify(anyOfChainSpec());
  assert.ok(text.length > 3000 && text.length < 5000, `${text.length} bytes`);
  writeFileSync(join(dir, 'chain.json'), text);
  const r = runBin(['generate', 'chain.json', '--simple', '3', '--complex', '3', '--out', 'h'], dir);
  assert.equal(r.signal, null, `killed after 30 s: ${r.err.slice(-500)}`);
  assert.equal(r.code, 0, r.err);
  const manifest = JSON.parse(readFileSync(join(dir, 'h', 'manifest.json'), 'utf8')) as {
    counts: { records: number; skipped: { tool: string; reason: string }[] };
  };
  assert.ok(manifest.counts.records > 0, 'records are written for the ordinary tool');
  assert.deepEqual(manifest.counts.skipped, [
    {
      tool: 'walk_chain',
      reason: `inputSchema expands to more than ${MAX_SCHEMA_EXPANSION} schema nodes once its $refs and anyOf/oneOf/allOf branches are followed (limit ${MAX_SCHEMA_EXPANSION})`,
    },
  ]);
  assert.match(r.out + r.err, /skipped tools: walk_chain \(inputSchema expands to more than/);
});

test('inspect flags the anyOf chain with schema-expansion-budget', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'chain.json'), JSON.stringify(anyOfChainSpec()));
  const r = runBin(['inspect', 'chain.json', '--json'], dir);
  assert.equal(r.code, 0, r.err);
  const findings = (JSON.parse(r.out) as { servers: { findings: { code: string; tool: string; severity: string }[] }[] }).servers[0]!.findings;
  assert.deepEqual(
    findings.filter((f) => f.code === 'schema-expansion-budget').map((f) => [f.tool, f.severity]),
    [['walk_chain', 'warning']],
  );
  // A short chain is well within the budget: no finding.
  writeFileSync(join(dir, 'short.json'), JSON.stringify(anyOfChainSpec(5)));
  const short = JSON.parse(runBin(['inspect', 'short.json', '--json'], dir).out) as { servers: { findings: { code: string }[] }[] };
  assert.ok(!short.servers[0]!.findings.some((f) => f.code === 'schema-expansion-budget'));
});

test('inspect flags each unsatisfiable schema with its own code, at the parameter, as an error', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'hostile.json'), JSON.stringify(unsatisfiableSpec()));
  const r = runBin(['inspect', 'hostile.json', '--json'], dir);
  assert.equal(r.code, 0, r.err);
  const findings = (JSON.parse(r.out) as { servers: { findings: { code: string; tool: string; severity: string; param?: string; message: string }[] }[] })
    .servers[0]!.findings;
  const ours = new Set(['unsatisfiable-recursion', 'required-depth-over-cap', 'unsatisfiable-range', 'empty-enum', 'const-type-mismatch']);
  const got = findings
    .filter((f) => ours.has(f.code))
    .map((f) => `${f.tool} ${f.code} ${f.severity} ${f.param ?? ''}`)
    .sort();
  assert.deepEqual(got, [
    'deep_config required-depth-over-cap warning x',
    'set_const const-type-mismatch error x',
    'set_enum empty-enum error x',
    'set_enum_type const-type-mismatch error x',
    'set_exclusive unsatisfiable-range error x',
    'set_integer unsatisfiable-range error x',
    'set_items unsatisfiable-range error x',
    'set_length unsatisfiable-range error x',
    'set_minimum unsatisfiable-range error x',
    'set_props unsatisfiable-range error x',
    'walk_cycle unsatisfiable-recursion error x',
  ]);
  const message = (tool: string): string => findings.find((f) => f.tool === tool && ours.has(f.code))!.message;
  assert.match(message('set_minimum'), /at \/properties\/x: minimum 10 > maximum 1\./);
  assert.match(message('set_length'), /minLength 10 > maxLength 2/);
  assert.match(message('deep_config'), new RegExp(`nested 201 levels deep \\(through "x"\\), more than the ${MAX_SAMPLE_DEPTH}`));
  // The ordinary tool gets none of them.
  assert.ok(!findings.some((f) => f.tool === 'get_note' && ours.has(f.code)));
});

test('generate skips a cycle with no base and a 200-deep object with their own reasons, not "invalid after retries"', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'hostile.json'), JSON.stringify(unsatisfiableSpec()));
  const r = runBin(['generate', 'hostile.json', '--simple', '2', '--complex', '0', '--out', 'h'], dir);
  assert.equal(r.signal, null);
  const manifest = JSON.parse(readFileSync(join(dir, 'h', 'manifest.json'), 'utf8')) as { counts: { skipped: { tool: string; reason: string }[] } };
  const reasons = Object.fromEntries(manifest.counts.skipped.map((s) => [s.tool, s.reason]));
  assert.equal(reasons.walk_cycle, 'inputSchema has a required $ref cycle with no base case: no finite value satisfies it');
  assert.equal(reasons.deep_config, `inputSchema requires values nested 201 levels deep (limit ${MAX_SAMPLE_DEPTH})`);
  assert.ok(!Object.hasOwn(reasons, 'get_note'));
});
