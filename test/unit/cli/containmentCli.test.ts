/**
 * A harness folder from someone else (cloned, or from a pull request) with symbolic links where
 * its folders and files should be: every command refuses it with one line naming the link, exit 2,
 * and nothing is read, written or removed through the link. Runs the built CLI (`dist/cli.js`) as
 * a process, against a folder laid out like a repository (package.json, tsconfig.json, a secret
 * file) with the harness in `evals/mcp-git`.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runBuiltCli, type BuiltRun } from '../cliRunner';
import { after, before, describe, it } from 'node:test';
import type { HarnessRecord } from '../../../src/core/harness/format';
import { startFakeGemini } from '../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../fakes/fakeLlmServer';
import { geminiAgent, oraclePlan } from '../../fakes/scriptedAgent';
import { specsDir } from '../fixturePaths';

const SPEC = join(specsDir, 'git-official.json');
/** The secret's text: a JSON parse error would quote its first characters. */
const SECRET = 'SECRETKEY-do-not-print-8f3a1c';
const HARNESS = join('evals', 'mcp-git');

/** The built CLI in `cwd` with exactly `env` (plus PATH). */
const runBin = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<BuiltRun> => runBuiltCli(args, { cwd, env });

/** Every file under a folder (not following links) with its bytes: to show nothing was written, changed or removed there. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) files.set(relative(dir, p), readFileSync(p, 'latin1'));
      else files.set(relative(dir, p), '(link)');
    }
  };
  walk(dir);
  return files;
}

/** The lines of stderr that refuse a link, each naming `path`. */
function refusals(r: BuiltRun): string[] {
  return r.err.split('\n').filter((l) => /symbolic link/.test(l));
}

function assertRefused(r: BuiltRun, path: string): void {
  assert.equal(r.code, 2, `exit ${r.code}\n${r.err}`);
  const lines = refusals(r);
  assert.equal(lines.length, 1, r.err);
  assert.ok(lines[0]!.includes(path), `${lines[0]} names ${path}`);
  assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
}

function assertNoSecret(...texts: string[]): void {
  for (const t of texts) assert.ok(!t.includes(SECRET.slice(0, 6)), `the secret's bytes were printed: ${t.slice(0, 400)}`);
}

describe('a harness with symbolic links inside is refused by every command (built CLI)', () => {
  let base: string;
  let template: string;
  let records: HarnessRecord[];
  const made: string[] = [];
  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'agent-seer-contain-'));
    made.push(base);
    template = join(base, 'template');
    mkdirSync(template);
    const r = await runBin(['generate', SPEC, '--out', HARNESS, '--simple', '3', '--complex', '2'], template);
    assert.equal(r.code, 0, r.err);
    const dir = join(template, HARNESS, 'records');
    records = readdirSync(dir).map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as HarnessRecord);
  });
  after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

  /** A fresh repository-like folder holding a copy of the generated harness, a secret and a victim folder with copies of the records. */
  function repo(): { root: string; harness: string; victim: string } {
    const root = mkdtempSync(join(base, 'repo-'));
    cpSync(template, root, { recursive: true });
    writeFileSync(join(root, 'package.json'), '{ "name": "victim-repo", "private": true }\n');
    writeFileSync(join(root, 'tsconfig.json'), '{ "compilerOptions": {} }\n');
    writeFileSync(join(root, 'secret.key'), `${SECRET}\n`);
    const victim = join(root, 'victim');
    cpSync(join(root, HARNESS, 'records'), victim, { recursive: true });
    writeFileSync(join(victim, 'keep.txt'), 'mine\n');
    return { root, harness: join(root, HARNESS), victim };
  }

  /** Replaces `<harness>/<name>` by a link to `target` (relative to the harness folder). */
  function link(harness: string, name: string, target: string): void {
    rmSync(join(harness, name), { recursive: true, force: true });
    symlinkSync(target, join(harness, name));
  }

  /** Adds a record file that is a link to the secret. */
  function secretRecord(harness: string): string {
    const file = join(harness, 'records', 'x.json');
    symlinkSync(join('..', '..', '..', 'secret.key'), file);
    return join(HARNESS, 'records', 'x.json');
  }

  it('generate: records/ → ../.. with a manifest listing package and tsconfig deletes nothing and writes nothing at the root', async () => {
    const { root, harness } = repo();
    const manifest = JSON.parse(readFileSync(join(harness, 'manifest.json'), 'utf8')) as { recordIds: string[] };
    manifest.recordIds.push('package', 'tsconfig');
    writeFileSync(join(harness, 'manifest.json'), JSON.stringify(manifest, null, 2));
    link(harness, 'records', join('..', '..'));
    const before = snapshot(root);
    const r = await runBin(['generate', SPEC, '--out', HARNESS, '--simple', '3', '--complex', '2'], root);
    assert.equal(readFileSync(join(root, 'package.json'), 'utf8'), '{ "name": "victim-repo", "private": true }\n');
    assert.deepEqual(snapshot(root), before, 'the repository root is as it was: package.json and tsconfig.json are there, nothing was added');
    assertRefused(r, join(HARNESS, 'records'));
  });

  it('generate: a record file linked to a secret, a .cache linked elsewhere: refused, the secret is not printed', async () => {
    const { root, harness, victim } = repo();
    const named = secretRecord(harness);
    const r = await runBin(['generate', SPEC, '--out', HARNESS, '--simple', '3', '--complex', '2'], root);
    assertNoSecret(r.out, r.err);
    assertRefused(r, named);
    rmSync(join(harness, 'records', 'x.json'));
    link(harness, '.cache', join('..', '..', 'victim'));
    const before = snapshot(victim);
    const c = await runBin(['generate', SPEC, '--out', HARNESS, '--simple', '3', '--complex', '2'], root);
    assert.deepEqual(snapshot(victim), before);
    assertRefused(c, join(HARNESS, '.cache'));
  });

  it('generate --only-stale: records/ → a folder outside keeps every file of that folder', async () => {
    const { root, harness, victim } = repo();
    const spec = JSON.parse(readFileSync(SPEC, 'utf8')) as { server?: unknown; tools: { name: string; description?: string }[] };
    // One tool the records use changes: its records are stale, and the run would remove and rewrite them.
    const used = records[0]!.expected_tools[0]!.name;
    const v2 = { ...spec, tools: spec.tools.map((t) => (t.name === used ? { ...t, description: `${t.description ?? ''} Edited.` } : t)) };
    mkdirSync(join(root, 'v2'));
    writeFileSync(join(root, 'v2', 'git-official.json'), JSON.stringify(v2));
    link(harness, 'records', join('..', '..', 'victim'));
    const before = snapshot(victim);
    const r = await runBin(['generate', join('v2', 'git-official.json'), '--out', HARNESS, '--only-stale'], root);
    assert.deepEqual(snapshot(victim), before, 'no record removed or written outside the harness');
    assertRefused(r, join(HARNESS, 'records'));
  });

  it('judge: a record linked to a secret, records/ or .cache linked elsewhere: refused, nothing printed of the secret, nothing rewritten', async () => {
    const { root, harness, victim } = repo();
    const named = secretRecord(harness);
    const r = await runBin(['judge', HARNESS], root);
    assertNoSecret(r.out, r.err);
    assertRefused(r, named);

    rmSync(join(harness, 'records', 'x.json'));
    const records = snapshot(join(harness, 'records'));
    link(harness, 'records', join('..', '..', 'victim'));
    const before = snapshot(victim);
    const j = await runBin(['judge', HARNESS, '--json'], root);
    assert.deepEqual(snapshot(victim), before, 'no judgment written into files outside the harness');
    assertRefused(j, join(HARNESS, 'records'));

    rmSync(join(harness, 'records'));
    mkdirSync(join(harness, 'records'));
    for (const [name, text] of records) writeFileSync(join(harness, 'records', name), text, 'latin1');
    link(harness, '.cache', join('..', '..', 'victim'));
    const c = await runBin(['judge', HARNESS], root);
    assert.deepEqual(snapshot(victim), before);
    assertRefused(c, join(HARNESS, '.cache'));
  });

  it('report: a record linked to a secret is refused in every format, never in the report; a linked runs/ too', async () => {
    const { root, harness } = repo();
    const named = secretRecord(harness);
    for (const format of ['md', 'json', 'html']) {
      const r = await runBin(['report', HARNESS, '--format', format], root);
      assertNoSecret(r.out, r.err);
      assertRefused(r, named);
    }
    const toFile = await runBin(['report', HARNESS, '--out', 'report.md'], root);
    assertRefused(toFile, named);
    assert.throws(() => statSync(join(root, 'report.md')), 'no report written');

    rmSync(join(harness, 'records', 'x.json'));
    mkdirSync(join(root, 'elsewhere', 'agent', '1'), { recursive: true });
    link(harness, 'runs', join('..', '..', 'elsewhere'));
    const runs = await runBin(['report', HARNESS], root);
    assertRefused(runs, join(HARNESS, 'runs'));
  });

  it('export: a record linked to a secret is refused, and its bytes are not exported', async () => {
    const { root, harness } = repo();
    const named = secretRecord(harness);
    const r = await runBin(['export', HARNESS], root);
    assertNoSecret(r.out, r.err);
    assertRefused(r, named);
    rmSync(join(harness, 'records', 'x.json'));
    link(harness, 'spec.json', join('..', '..', 'secret.key'));
    const s = await runBin(['export', HARNESS], root);
    assertNoSecret(s.out, s.err);
    assertRefused(s, join(HARNESS, 'spec.json'));
  });

  it('serve: a linked runs/ is refused before any session (no trajectory written outside); a record linked to a secret too', async () => {
    const { root, harness, victim } = repo();
    link(harness, 'runs', join('..', '..', 'victim'));
    const before = snapshot(victim);
    const r = await runBin(['serve', HARNESS], root);
    assert.deepEqual(snapshot(victim), before);
    assertRefused(r, join(HARNESS, 'runs'));
    rmSync(join(harness, 'runs'));
    const named = secretRecord(harness);
    const s = await runBin(['serve', HARNESS], root);
    assertNoSecret(s.out, s.err);
    assertRefused(s, named);
  });

  describe('run (against a fake Gemini)', () => {
    let gemini: FakeLlmServer;
    before(async () => {
      gemini = await startFakeGemini({ apiKey: 'k' });
      gemini.respondWith(geminiAgent(oraclePlan(records)));
    });
    after(() => gemini.close());

    it('a linked runs/ or .cache is refused: no trajectory and no cached reply written where it leads, no request sent', async () => {
      const { root, harness, victim } = repo();
      const args = ['run', HARNESS, '--agent', 'gemini:gemini-2.5-flash', '--base-url', gemini.url];
      for (const name of ['runs', '.cache']) {
        link(harness, name, join('..', '..', 'victim'));
        const before = snapshot(victim);
        const sent = gemini.requests.length;
        const r = await runBin(args, root, { GEMINI_API_KEY: 'k' });
        assert.deepEqual(snapshot(victim), before, `nothing written through ${name}`);
        assertRefused(r, join(HARNESS, name));
        assert.equal(gemini.requests.length, sent, 'the agent was not started');
        rmSync(join(harness, name));
      }
      const named = secretRecord(harness);
      const s = await runBin(args, root, { GEMINI_API_KEY: 'k' });
      assertNoSecret(s.out, s.err);
      assertRefused(s, named);
    });
  });

  it('report and export refuse a harness a generate run is writing (its lock held by a live process), naming the holder', async () => {
    const { root, harness } = repo();
    // This test process is alive on this host: the lock is not stale.
    const since = new Date().toISOString();
    writeFileSync(join(harness, '.agent-seer.lock'), `${JSON.stringify({ pid: process.pid, hostname: hostname(), purpose: 'generate', since })}\n`);
    for (const args of [
      ['report', HARNESS],
      ['report', HARNESS, '--format', 'json'],
      ['export', HARNESS],
    ]) {
      const r = await runBin(args, root);
      assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.err}`);
      assert.equal(r.out, '', 'no partial report or export');
      assert.match(r.err, new RegExp(`in use by another generate run \\(pid ${process.pid}, since ${since.replace(/[.]/g, '\\.')}\\)`));
    }
    // A lock left by a process that has ended (a killed run) does not stop the reader.
    writeFileSync(join(harness, '.agent-seer.lock'), `${JSON.stringify({ pid: 2 ** 22 + 12345, hostname: hostname(), purpose: 'generate', since })}\n`);
    const ok = await runBin(['report', HARNESS, '--format', 'json'], root);
    assert.equal(ok.code, 0, ok.err);
  });
});
