/**
 * `agent-seer generate` through `run()`: offline and against the fake Gemini (`--base-url`),
 * spec files and config files, the JSON summary, exit codes, determinism, cancellation.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run } from '../../../src/cli/main';
import { offlineStages } from '../../../src/core/harness/offlineStages';
import { OFFLINE_MODEL } from '../../../src/core/pipeline/offline';
import { readHarness } from '../../../src/core/harness/store';
import { loadSpecText } from '../../../src/core/spec/snapshot';
import { startFakeGemini } from '../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../fakes/fakeLlmServer';
import { capturingIo, recordTexts } from '../cliRunner';
import { specsDir } from '../fixturePaths';
import { createResponder, stageOf, type Responder } from '../pipelineResponder';

const io = capturingIo;

const slackSpec = join(specsDir, 'slack.json');

describe('agent-seer generate', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-gen-cli-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('offline by default into evals/<server>/, with a text summary on stdout and progress on stderr', async () => {
    const c = io(root);
    assert.equal(await run(['generate', slackSpec, '--simple', '3', '--complex', '3'], c), 0);
    const out = join(root, 'evals', 'slack-mcp-server');
    const h = await readHarness(out);
    assert.deepEqual(h.problems, []);
    assert.equal(h.manifest?.status, 'complete');
    assert.equal(h.manifest?.provider, 'offline');
    const text = c.stdout.join('\n');
    assert.match(text, new RegExp(`Wrote \\d+ records in evals/slack-mcp-server \\(complete; offline ${OFFLINE_MODEL}\\)`));
    assert.match(text, /tiers: \d+ simple, \d+ complex/);
    assert.match(text, /multi-turn: \d+ of \d+ scenarios \(\d+%; the paper: 16%, 54 of 337 scenarios\); \d+ multi-call scenarios could be split/);
    assert.match(text, /tool coverage: 8\/8 \(100%\)/);
    assert.match(text, /repaired: /);
    assert.match(text, /discarded: /);
    assert.match(text, /wall time: [\d.]+ s/);
    assert.match(c.stderr.join('\n'), /generating for "Slack MCP Server" \(8 tools\) with the offline generator/);
  });

  it('--json prints the summary as an object with outputDir; same seed → identical files, another seed → others', async () => {
    const a = io(root);
    assert.equal(await run(['generate', slackSpec, '--out', 'a', '--seed', '5', '--json'], a), 0);
    const summary = JSON.parse(a.stdout.join('\n')) as Record<string, unknown>;
    assert.equal(summary.outputDir, join(root, 'a'));
    assert.equal(summary.status, 'complete');
    for (const key of ['records', 'byTier', 'multiCall', 'multiTurn', 'multiTurnRate', 'coverage', 'repaired', 'discarded', 'llm', 'wallTimeMs'])
      assert.ok(key in summary, key);
    assert.deepEqual(Object.keys(summary.byTier as object), ['simple', 'complex']);
    assert.equal((summary.coverage as { ratio: number }).ratio, 1);
    assert.equal((summary.llm as { calls: number }).calls, 0);
    assert.equal(await run(['generate', slackSpec, '--out', 'b', '--seed', '5', '--json'], io(root)), 0);
    assert.equal(await run(['generate', slackSpec, '--out', 'c', '--seed', '6', '--json'], io(root)), 0);
    const [ra, rb, rc] = await Promise.all(['a', 'b', 'c'].map((d) => recordTexts(join(root, d))));
    assert.deepEqual(ra, rb, 'byte-identical records');
    assert.notDeepEqual(ra, rc);
  });

  it('bad input exits 2 with one line: missing file, not a spec, broken JSON, bad numbers, unknown provider, no key', async () => {
    await writeFile(join(root, 'broken.json'), '{"tools": [ {"name": "x", ');
    await writeFile(join(root, 'other.json'), '{"hello": "world"}');
    await writeFile(join(root, 'empty.json'), '{"tools": []}');
    const cases: [string[], RegExp][] = [
      [['generate'], /needs a spec/],
      [['generate', 'nope.json'], /nope\.json: no such file/],
      [['generate', 'broken.json'], /broken\.json/],
      [['generate', 'other.json'], /not a tool spec .* or an MCP config file/],
      [['generate', 'empty.json'], /has no tools/],
      [['generate', slackSpec, '--simple', 'many'], /--simple takes a whole number/],
      [['generate', slackSpec, '--provider', 'claude'], /--provider takes offline, gemini or openai/],
      [['generate', slackSpec, '--provider', 'gemini'], /No Gemini API key/],
      [['generate', slackSpec, '--frobnicate'], /frobnicate/],
      [['generate', slackSpec, '--fallback', 'templates'], /--fallback takes none or offline, got "templates"/],
    ];
    for (const [argv, message] of cases) {
      const c = io(root);
      assert.equal(await run(argv, c), 2, argv.join(' '));
      assert.equal(c.stderr.length, 1, `${argv.join(' ')}: one line (${c.stderr.join(' | ')})`);
      assert.match(c.stderr[0]!, message);
    }
  });

  it('a config file uses the snapshot beside it, or says to take one', async () => {
    const ws = join(root, 'ws');
    await mkdir(join(ws, '.vscode'), { recursive: true });
    await writeFile(join(ws, '.vscode', 'mcp.json'), '{ "servers": { "slack": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-slack"] } } }');
    const missing = io(ws);
    assert.equal(await run(['generate', '.vscode/mcp.json'], missing), 2);
    assert.match(
      missing.stderr[0]!,
      /no snapshot of server "slack" at \.agentseer\/specs\/slack\.json: run `agent-seer snapshot \.vscode\/mcp\.json --server slack --out \.agentseer\/specs` first/,
    );
    await mkdir(join(ws, '.agentseer', 'specs'), { recursive: true });
    await copyFile(slackSpec, join(ws, '.agentseer', 'specs', 'slack.json'));
    const ok = io(ws);
    assert.equal(await run(['generate', '.vscode/mcp.json', '--server', 'slack', '--json'], ok), 0);
    assert.equal((JSON.parse(ok.stdout.join('\n')) as { outputDir: string }).outputDir, join(ws, 'evals', 'slack'));
  });

  describe('with the fake Gemini', () => {
    let fake: FakeLlmServer;
    let responder: Responder;
    const env = { GEMINI_API_KEY: 'test-key' };
    before(async () => {
      fake = await startFakeGemini({ apiKey: 'test-key' });
      const load = loadSpecText(await readFile(slackSpec, 'utf8'), slackSpec);
      assert.ok(load.ok);
      responder = createResponder({ spec: load.spec });
      fake.respondWith(responder.respond);
    });
    after(() => fake.close());

    it('generates through --base-url; the re-run makes zero calls', async () => {
      const argv = [
        'generate',
        slackSpec,
        '--provider',
        'gemini',
        '--base-url',
        fake.url,
        '--out',
        'g',
        '--simple',
        '3',
        '--complex',
        '2',
        '--rpm',
        '600',
        '--json',
      ];
      const before = fake.requests.length;
      const c = io(root, env);
      assert.equal(await run(argv, c), 0, c.stderr.join('\n'));
      const s = JSON.parse(c.stdout.join('\n')) as {
        provider: string;
        model: string;
        records: number;
        llm: { calls: number; inputTokens: number };
        coverage: { ratio: number };
      };
      assert.equal(s.provider, 'gemini');
      assert.equal(s.model, 'gemini-2.5-flash-lite');
      assert.equal(s.llm.calls, fake.requests.length - before);
      assert.ok(s.llm.inputTokens > 0);
      assert.equal(s.coverage.ratio, 1);
      const again = io(root, env);
      assert.equal(await run(argv, again), 0);
      const s2 = JSON.parse(again.stdout.join('\n')) as { records: number; llm: { calls: number; cacheHits: number } };
      assert.equal(s2.llm.calls, 0);
      assert.ok(s2.llm.cacheHits > 0);
      assert.equal(s2.records, s.records);
      assert.match((await readdir(join(root, 'g', '.cache', 'llm'))).join(','), /^[0-9a-f]{2}/, 'the cache lives under <out>/.cache');
    });

    it('--fallback offline: a tool the model never uses gets a labelled template, and the summary counts it', async () => {
      const load = loadSpecText(await readFile(slackSpec, 'utf8'), slackSpec);
      assert.ok(load.ok);
      const stubborn = createResponder({ spec: load.spec, neverUse: (t) => t === 'slack_get_user_profile' });
      fake.respondWith(stubborn.respond);
      try {
        const base = ['generate', slackSpec, '--provider', 'gemini', '--base-url', fake.url, '--simple', '3', '--complex', '2'];
        const without = io(root, env);
        await run([...base, '--out', 'nofallback'], without);
        assert.doesNotMatch(without.stdout.join('\n'), /offline templates/);
        assert.match(without.stdout.join('\n'), /not covered: slack_get_user_profile/);
        const c = io(root, env);
        await run([...base, '--out', 'fallback', '--fallback', 'offline'], c);
        const text = c.stdout.join('\n');
        const records = Number(/Wrote (\d+) records|Kept (\d+) records/.exec(text)?.slice(1).find(Boolean));
        assert.match(text, new RegExp(`  1 of ${records} records are offline templates \\(--fallback offline\\)`));
        assert.match(text, /tool coverage: 8\/8/);
        // The record says which stage, and the report says how many, as the tree does (offlineStages).
        const read = await readHarness(join(root, 'fallback'));
        const labelled = read.records.filter((r) => offlineStages(r).length > 0);
        assert.equal(labelled.length, 1);
        assert.ok(labelled[0]!.expected_tools.some((t) => t.name === 'slack_get_user_profile'));
        assert.equal((await readHarness(join(root, 'nofallback'))).records.filter((r) => offlineStages(r).length > 0).length, 0);
        const rep = io(root, env);
        await run(['report', 'fallback', '--format', 'json'], rep);
        const warnings = (JSON.parse(rep.stdout.join('\n')) as { warnings: string[] }).warnings;
        assert.ok(
          warnings.some((w) => new RegExp(`^1 of ${records} records of .* are offline templates in some stage`).test(w)),
          warnings.join('\n'),
        );
      } finally {
        fake.respondWith(responder.respond);
      }
    });

    it('a wrong key fails the run: exit 1, manifest failed', async () => {
      const c = io(root, { GEMINI_API_KEY: 'wrong' });
      assert.equal(await run(['generate', slackSpec, '--provider', 'gemini', '--base-url', fake.url, '--out', 'bad'], c), 1);
      assert.match(c.stderr.join('\n'), /generation failed: .*API key/);
      assert.equal((await readHarness(join(root, 'bad'))).manifest?.status, 'failed');
    });

    it('cancelling (SIGINT) stops cleanly: exit 1, finished records on disk, manifest cancelled', async () => {
      const ctl = new AbortController();
      let mocks = 0;
      fake.respondWith((req) => {
        // Cancel once a few scenarios are being mocked, as Ctrl-C would.
        if (stageOf(req) === 'mock' && ++mocks === 3) ctl.abort();
        return { ...responder.respond(req), delayMs: 20 };
      });
      const c = io(root, env);
      assert.equal(await run(['generate', slackSpec, '--provider', 'gemini', '--base-url', fake.url, '--out', 'cancelled', '--json'], c, ctl.signal), 1);
      const s = JSON.parse(c.stdout.join('\n')) as { status: string };
      assert.equal(s.status, 'cancelled');
      const h = await readHarness(join(root, 'cancelled'));
      assert.equal(h.manifest?.status, 'cancelled');
      assert.deepEqual(h.problems, []);
    });
  });
});
