/**
 * `agent-seer generate` over a corpus (several specs, or a folder) through `run()`: one harness
 * folder per spec, each what a run of that spec alone writes; skipped files said; duplicate names
 * and configs refused; one failing spec does not stop the others and sets the exit code; one
 * call guard for the whole corpus, measured at the fake Gemini server.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run } from '../../../src/cli/main';
import { readHarness } from '../../../src/core/harness/store';
import { startFakeGemini } from '../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../fakes/fakeLlmServer';
import { schemaOnlyModel } from '../../fakes/schemaOnly';
import { capturingIo, recordTexts } from '../cliRunner';
import { specsDir } from '../fixturePaths';

const io = capturingIo;

/** Three small fixture specs and the harness folder each is named into. */
const CORPUS = [
  { file: join(specsDir, 'slack.json'), harness: 'slack-mcp-server' },
  { file: join(specsDir, 'git-official.json'), harness: 'mcp-git' },
  { file: join(specsDir, 'memory.json'), harness: 'memory-server' },
];
const files = CORPUS.map((c) => c.file);

describe('agent-seer generate over a corpus', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-corpus-cli-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('offline: three specs → three harness folders, each byte-identical to a run of that spec alone; a line per spec and a total', async () => {
    const c = io(root);
    assert.equal(await run(['generate', ...files, '--out', 'corpus', '--simple', '3', '--complex', '2', '--seed', '7'], c), 0, c.stderr.join('\n'));
    assert.deepEqual((await readdir(join(root, 'corpus'))).sort(), CORPUS.map((x) => x.harness).sort());
    for (const spec of CORPUS) {
      const alone = `alone-${spec.harness}`;
      assert.equal(await run(['generate', spec.file, '--out', alone, '--simple', '3', '--complex', '2', '--seed', '7'], io(root)), 0);
      const [inCorpus, single] = await Promise.all([recordTexts(join(root, 'corpus', spec.harness)), recordTexts(join(root, alone))]);
      assert.ok(single.size > 0);
      assert.deepEqual(inCorpus, single, `${spec.harness}: byte-identical records`);
      const h = await readHarness(join(root, 'corpus', spec.harness));
      assert.equal(h.manifest?.status, 'complete');
      assert.deepEqual(h.problems, []);
    }
    const text = c.stdout.join('\n');
    assert.match(text, /^Corpus of 3 specs in corpus \(the offline generator\):/);
    for (const spec of CORPUS)
      assert.match(text, new RegExp(`^  ${spec.harness}: complete, \\d+ records \\(\\d+ simple, \\d+ complex\\), tool coverage (\\d+)/\\1$`, 'm'));
    const total = /^ {2}total: (\d+) records over 3 specs; 3 complete$/m.exec(text);
    assert.ok(total, text);
    const sum = (await Promise.all(CORPUS.map((s) => readHarness(join(root, 'corpus', s.harness))))).reduce((n, h) => n + h.records.length, 0);
    assert.equal(Number(total[1]), sum);
    assert.match(c.stderr.join('\n'), /generating for 3 specs \(\d+ tools\) into corpus with the offline generator/);
  });

  it('a folder: every spec in it, the other JSON files skipped with one line each; --json has an object per spec and the total', async () => {
    const dir = join(root, 'specs-folder');
    await mkdir(dir, { recursive: true });
    await copyFile(files[0]!, join(dir, 'slack.json'));
    await copyFile(files[2]!, join(dir, 'memory.json'));
    await writeFile(join(dir, 'package.json'), '{"name": "not-a-spec", "version": "1.0.0"}');
    await writeFile(join(dir, 'broken.json'), '{"tools": [');
    await writeFile(join(dir, 'notes.txt'), 'not JSON at all, and not *.json');
    const c = io(root);
    assert.equal(await run(['generate', 'specs-folder', '--out', 'from-folder', '--simple', '2', '--complex', '1', '--json'], c), 0, c.stderr.join('\n'));
    const skipped = c.stderr.filter((l) => l.startsWith('agent-seer: skipped '));
    assert.equal(skipped.length, 2, c.stderr.join('\n'));
    assert.match(skipped[0]!, /^agent-seer: skipped specs-folder\/broken\.json: .+/);
    assert.match(skipped[1]!, /^agent-seer: skipped specs-folder\/package\.json: not a tool spec/);
    const summary = JSON.parse(c.stdout.join('\n')) as {
      outputDir: string;
      exitCode: number;
      specs: { file: string; harness: string; status: string; records: number; outputDir: string }[];
      skipped: { file: string; reason: string }[];
      total: { specs: number; records: number; byStatus: Record<string, number> };
    };
    assert.equal(summary.outputDir, join(root, 'from-folder'));
    assert.equal(summary.exitCode, 0);
    assert.deepEqual(
      summary.specs.map((s) => [s.file, s.harness, s.status, s.outputDir]),
      [
        ['specs-folder/memory.json', 'memory-server', 'complete', join(root, 'from-folder', 'memory-server')],
        ['specs-folder/slack.json', 'slack-mcp-server', 'complete', join(root, 'from-folder', 'slack-mcp-server')],
      ],
    );
    assert.deepEqual(
      summary.skipped.map((s) => s.file),
      ['specs-folder/broken.json', 'specs-folder/package.json'],
    );
    assert.equal(summary.total.specs, 2);
    assert.equal(summary.total.records, summary.specs[0]!.records + summary.specs[1]!.records);
    assert.equal(summary.total.byStatus.complete, 2);
  });

  it('bad input exits 2 with one line before anything is written: two specs with one harness name, a config, --server, a folder without specs', async () => {
    await writeFile(join(root, 'slack-copy.json'), await readFile(files[0]!, 'utf8'));
    await mkdir(join(root, 'ws', '.vscode'), { recursive: true });
    await writeFile(join(root, 'ws', '.vscode', 'mcp.json'), '{ "servers": { "slack": { "command": "npx", "args": ["-y", "server-slack"] } } }');
    await mkdir(join(root, 'empty-folder'), { recursive: true });
    await writeFile(join(root, 'empty-folder', 'x.json'), '{"hello": 1}');
    const slack = files[0]!;
    const cases: [string[], RegExp][] = [
      [[slack, 'slack-copy.json'], /^agent-seer: .*slack\.json and slack-copy\.json would both be generated into the harness folder "slack-mcp-server"/],
      [[slack, 'ws/.vscode/mcp.json'], /^agent-seer: ws\/\.vscode\/mcp\.json: an MCP config file, not a spec: a corpus takes spec files/],
      [[slack, files[1]!, '--server', 'slack'], /^agent-seer: --server names one server of a config/],
      [[slack, files[1]!, '--only-stale'], /^agent-seer: --only-stale regenerates one harness/],
      [['empty-folder'], /^agent-seer: empty-folder: no spec with tools in this folder/],
    ];
    for (const [argv, message] of cases) {
      const c = io(root);
      assert.equal(await run(['generate', ...argv, '--out', 'refused'], c), 2, argv.join(' '));
      const lines = c.stderr.filter((l) => !l.startsWith('agent-seer: skipped '));
      assert.equal(lines.length, 1, `${argv.join(' ')}: one line (${c.stderr.join(' | ')})`);
      assert.match(lines[0]!, message);
    }
    await assert.rejects(readdir(join(root, 'refused')), { code: 'ENOENT' });
  });

  it('the fixture folder as it is: every pair of specs with one harness name is named in one line (exit 2), nothing written', async () => {
    const c = io(root);
    assert.equal(await run(['generate', specsDir, '--out', 'all-fixtures'], c), 2);
    const lines = c.stderr.filter((l) => !l.startsWith('agent-seer: skipped '));
    assert.equal(lines.length, 1, c.stderr.join('\n'));
    for (const [a, b, name] of [
      ['elasticsearch-cr7258-v2.1.1.json', 'elasticsearch-cr7258.json', 'elasticsearch-mcp-server'],
      ['github-npm.json', 'github-official-all.json', 'github-mcp-server'],
      ['gitlab-broken-empty-schemas.json', 'gitlab.json', 'gitlab-mcp-server'],
      ['redis-mcp-0.5.0.json', 'redis-mcp-0.5.1.json', 'redis-mcp-server'],
    ])
      assert.ok(
        lines[0]!.includes(`${a} and `) && lines[0]!.includes(`${b} would both be generated into the harness folder "${name}"`),
        `${name}: ${lines[0]}`,
      );
    assert.match(lines[0]!, /: generate one of each pair alone with --out$/);
    await assert.rejects(readdir(join(root, 'all-fixtures')), { code: 'ENOENT' });
  });

  it('one refused output folder: the other specs are still written, and the exit code is the worst (2)', async () => {
    // The slack harness folder already holds something that is not a harness: refused, not overwritten.
    await mkdir(join(root, 'mixed', 'slack-mcp-server'), { recursive: true });
    await writeFile(join(root, 'mixed', 'slack-mcp-server', 'mine.txt'), 'precious');
    const c = io(root);
    assert.equal(await run(['generate', ...files, '--out', 'mixed', '--simple', '2', '--complex', '1'], c), 2);
    assert.equal(await readFile(join(root, 'mixed', 'slack-mcp-server', 'mine.txt'), 'utf8'), 'precious');
    for (const h of ['mcp-git', 'memory-server']) assert.equal((await readHarness(join(root, 'mixed', h))).manifest?.status, 'complete', h);
    const text = c.stdout.join('\n');
    assert.match(text, /^ {2}slack-mcp-server: not written \(bad input\): .*is not a harness folder/m);
    assert.match(text, /^ {2}total: \d+ records over 3 specs; 2 complete, 1 refused$/m);
    assert.match(c.stderr.join('\n'), /agent-seer: slack-mcp-server: .*is not a harness folder/);
  });

  describe('with the fake Gemini and the schema-only model', () => {
    let fake: FakeLlmServer;
    const env = { GEMINI_API_KEY: 'test-key' };
    before(async () => {
      fake = await startFakeGemini({ apiKey: 'test-key' });
      // A little latency, so calls overlap and the in-flight bound is tested, not trivially met.
      fake.respondWith((req) => ({ ...schemaOnlyModel(req), delayMs: 15 }));
    });
    after(() => fake.close());
    const llm = ['--provider', 'gemini', '--base-url', '', '--simple', '2', '--complex', '1', '--concurrency', '2'];
    const llmArgs = (): string[] => llm.map((a) => (a === '' ? fake.url : a));

    it('three specs share one guard (never more than --concurrency 2 in flight at the server), and each harness has the record ids of a run alone', async () => {
      fake.reset();
      fake.respondWith((req) => ({ ...schemaOnlyModel(req), delayMs: 15 }));
      const c = io(root, env);
      const code = await run(['generate', ...files, '--out', 'llm-corpus', ...llmArgs(), '--json'], c);
      const corpusRequests = fake.requests.length;
      assert.ok(corpusRequests > 6, `${corpusRequests} requests`);
      assert.equal(fake.maxInFlight, 2, 'the corpus shares one guard of concurrency 2');
      const summary = JSON.parse(c.stdout.join('\n')) as { exitCode: number; specs: { harness: string; status: string; llm: { calls: number } }[] };
      assert.equal(code, summary.exitCode);
      assert.equal(
        summary.specs.reduce((n, s) => n + s.llm.calls, 0),
        corpusRequests,
        'every request is counted by the spec that made it',
      );
      for (const spec of CORPUS) {
        const alone = `llm-alone-${spec.harness}`;
        await run(['generate', spec.file, '--out', alone, ...llmArgs()], io(root, env));
        const [inCorpus, single] = await Promise.all([readHarness(join(root, 'llm-corpus', spec.harness)), readHarness(join(root, alone))]);
        const ids = (h: typeof single) => h.records.map((r) => r.id).sort();
        assert.ok(single.records.length > 0, spec.harness);
        assert.deepEqual(ids(inCorpus), ids(single), `${spec.harness}: same record ids`);
        assert.equal(inCorpus.manifest?.status, single.manifest?.status);
        // Its own cache, under its own harness folder.
        assert.ok((await readdir(join(root, 'llm-corpus', spec.harness, '.cache', 'llm'))).length > 0);
      }
      // A re-run of the corpus asks nothing: every spec's replies are in its own cache.
      const before = fake.requests.length;
      const again = io(root, env);
      await run(['generate', ...files, '--out', 'llm-corpus', ...llmArgs(), '--json'], again);
      assert.equal(fake.requests.length, before);
    });

    it('cancelling (SIGINT) stops every spec: exit 1, each manifest cancelled, nothing left running', async () => {
      const ctl = new AbortController();
      let seen = 0;
      fake.respondWith((req) => {
        if (++seen === 6) ctl.abort();
        return { ...schemaOnlyModel(req), delayMs: 15 };
      });
      try {
        const c = io(root, env);
        assert.equal(await run(['generate', ...files, '--out', 'llm-cancelled', ...llmArgs(), '--json'], c, ctl.signal), 1);
        const summary = JSON.parse(c.stdout.join('\n')) as { exitCode: number; specs: { status: string }[]; total: { byStatus: Record<string, number> } };
        assert.deepEqual(
          summary.specs.map((s) => s.status),
          ['cancelled', 'cancelled', 'cancelled'],
        );
        assert.equal(summary.total.byStatus.cancelled, 3);
        for (const spec of CORPUS) assert.equal((await readHarness(join(root, 'llm-cancelled', spec.harness))).manifest?.status, 'cancelled', spec.harness);
        assert.equal(fake.inFlight, 0);
      } finally {
        fake.respondWith((req) => ({ ...schemaOnlyModel(req), delayMs: 15 }));
      }
    });

    it("the server refusing one spec's calls fails that spec; the others are still written and the exit code is the worst (1)", async () => {
      const memory = JSON.parse(await readFile(files[2]!, 'utf8')) as { tools: { name: string }[] };
      const memoryTools = memory.tools.map((t) => t.name);
      fake.respondWith((req) => {
        const text = [req.system ?? '', ...req.messages.map((m) => m.content)].join('\n');
        // 400 is not retried and is no outage: only the memory spec's items fail.
        if (memoryTools.some((t) => text.includes(t))) return { status: 400, message: 'refused for this test' };
        return { ...schemaOnlyModel(req), delayMs: 5 };
      });
      try {
        const c = io(root, env);
        const code = await run(['generate', ...files, '--out', 'llm-mixed', ...llmArgs(), '--json'], c);
        const summary = JSON.parse(c.stdout.join('\n')) as { exitCode: number; specs: { harness: string; status: string; records: number }[] };
        const byHarness = new Map(summary.specs.map((s) => [s.harness, s]));
        assert.equal(byHarness.get('memory-server')?.status, 'failed');
        assert.equal(code, 1);
        assert.equal(summary.exitCode, 1);
        for (const h of ['slack-mcp-server', 'mcp-git']) {
          const read = await readHarness(join(root, 'llm-mixed', h));
          assert.ok(read.records.length > 0, h);
          assert.notEqual(byHarness.get(h)?.status, 'failed', h);
          assert.equal(read.manifest?.status, byHarness.get(h)?.status);
        }
        assert.equal((await readHarness(join(root, 'llm-mixed', 'memory-server'))).manifest?.status, 'failed');
        assert.match(c.stderr.join('\n'), /agent-seer: memory-server: generation failed: /);
      } finally {
        fake.respondWith((req) => ({ ...schemaOnlyModel(req), delayMs: 15 }));
      }
    });
  });
});
