/**
 * Hostile input must end in a one-line refusal or a recorded skip, promptly: schemas that
 * require huge values, files that are FIFOs or over the size limit, counts far too large. The
 * CLI cases run the built binary as a child process with a hard kill timeout, so a regression
 * fails the test instead of hanging the suite.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { MAX_INPUT_BYTES, MAX_SAMPLE_STRING } from '../../../../src/core/bounds';
import { FileReadError, readBoundedFile } from '../../../../src/core/boundedRead';
import { generateOffline, generateOfflineYielding } from '../../../../src/core/pipeline/offline';
import { validateCall } from '../../../../src/core/checks/validateCall';
import type { Spec } from '../../../../src/core/spec/model';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { repoRoot, specsDir } from '../../fixturePaths';

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bounds-'));
  made.push(dir);
  return dir;
}
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A spec of one ordinary tool plus the hostile ones given. */
function specWith(tools: object[]): Spec {
  const text = JSON.stringify({
    tools: [
      {
        name: 'get_note',
        description: 'Get a note by id.',
        inputSchema: { type: 'object', properties: { note_id: { type: 'string' } }, required: ['note_id'] },
      },
      ...tools,
    ],
  });
  const load = loadSpecText(text, 'hostile.json');
  assert.ok(load.ok);
  return load.spec;
}

const hostileTools = [
  {
    name: 'write_essay',
    description: 'Write an essay.',
    inputSchema: { type: 'object', properties: { text: { type: 'string', minLength: 300000 } }, required: ['text'] },
  },
  {
    name: 'tag_items',
    description: 'Tag items.',
    inputSchema: { type: 'object', properties: { ids: { type: 'array', items: { type: 'string' }, minItems: 100000000 } }, required: ['ids'] },
  },
  {
    name: 'grid_fill',
    description: 'Fill a grid.',
    inputSchema: {
      type: 'object',
      properties: { rows: { type: 'array', minItems: 900, items: { type: 'array', minItems: 900, items: { type: 'integer' } } } },
      required: ['rows'],
    },
  },
  {
    name: 'read_log',
    description: 'Read a log.',
    inputSchema: { type: 'object', properties: { log_id: { type: 'string' } }, required: ['log_id'] },
    outputSchema: { type: 'object', properties: { body: { type: 'string', minLength: 300000 } }, required: ['body'] },
  },
  {
    name: 'search_notes',
    description: 'Search notes.',
    // Optional and too long: the parameter is left out, the tool stays callable.
    inputSchema: { type: 'object', properties: { query: { type: 'string' }, essay: { type: 'string', minLength: 300000 } }, required: ['query'] },
  },
];

test('a schema requiring a huge string, array or value count skips its tool with the reason, in well under seconds', () => {
  const spec = specWith(hostileTools);
  const started = performance.now();
  const r = generateOffline(spec, { seed: 1, simple: 4, complex: 1 });
  const ms = performance.now() - started;
  assert.ok(ms < 3000, `took ${ms.toFixed(0)} ms`);
  const reasons = Object.fromEntries(r.skipped.map((s) => [s.tool, s.reason]));
  assert.deepEqual(Object.keys(reasons).sort(), ['grid_fill', 'read_log', 'tag_items', 'write_essay']);
  assert.equal(reasons.write_essay, `schema requires a 300000-character string (limit ${MAX_SAMPLE_STRING})`);
  assert.equal(reasons.tag_items, 'schema requires an array of 100000000 items (limit 1000)');
  assert.match(reasons.grid_fill!, /^schema requires more than \d+ values in one call/);
  assert.match(reasons.read_log!, /^output schema requires a 300000-character string/);
  // The skips are in the manifest counts too, and nothing generated breaks its schema.
  assert.deepEqual(r.manifestCounts.skipped, r.skipped);
  const called = new Set(r.records.flatMap((rec) => rec.expected_tools.map((c) => c.name)));
  assert.ok(called.has('search_notes') && called.has('get_note'), [...called].join(', '));
  for (const rec of r.records) for (const c of rec.expected_tools) assert.deepEqual(validateCall(spec, c).errors, [], `${rec.id} ${c.name}`);
});

test('a long required string at the limit is built and satisfies the schema', () => {
  const spec = specWith([
    {
      name: 'save_text',
      description: 'Save text.',
      inputSchema: { type: 'object', properties: { body: { type: 'string', minLength: MAX_SAMPLE_STRING } }, required: ['body'] },
    },
  ]);
  const started = performance.now();
  const r = generateOffline(spec, { seed: 2, simple: 2, complex: 0 });
  assert.ok(performance.now() - started < 3000);
  const call = r.records.flatMap((rec) => rec.expected_tools).find((c) => c.name === 'save_text');
  assert.ok(call, 'save_text is called');
  assert.equal([...String((call.arguments as { body: string }).body)].length, MAX_SAMPLE_STRING);
});

test('generating on the biggest fixture spec hands the event loop back, with the same result', async () => {
  const text = readFileSync(join(specsDir, 'twilio-api-v2010.json'), 'utf8');
  const load = loadSpecText(text, 'twilio-api-v2010.json');
  assert.ok(load.ok);
  const options = { seed: 1, simple: 6, complex: 4 };
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const yielding = await generateOfflineYielding(load.spec, options);
  clearInterval(timer);
  // A synchronous run lets no timer fire at all; this one lets it fire throughout.
  assert.ok(ticks >= 10, `the timer ran ${ticks} times`);
  assert.deepEqual(yielding, generateOffline(load.spec, options));
  const abort = new AbortController();
  abort.abort(new Error('stop'));
  await assert.rejects(generateOfflineYielding(load.spec, options, abort.signal), /stop/);
});

test('readBoundedFile refuses a FIFO, a folder and an oversized file without reading them', async (t) => {
  if (process.platform === 'win32') return t.skip('no mkfifo');
  const dir = tempDir();
  const fifo = join(dir, 'pipe.json');
  execFileSync('mkfifo', [fifo]);
  const big = join(dir, 'big.json');
  execFileSync('truncate', ['-s', String(MAX_INPUT_BYTES + 1), big]);
  const cases: [string, string, RegExp][] = [
    [fifo, 'not-a-file', /^a FIFO, not a regular file$/],
    [dir, 'not-a-file', /^a folder/],
    [big, 'too-large', /^too large \(64 MiB; the limit is 64 MiB\)$/],
    [join(dir, 'nope.json'), 'missing', /^no such file$/],
  ];
  for (const [file, reason, message] of cases) {
    await assert.rejects(readBoundedFile(file), (e: unknown) => e instanceof FileReadError && e.reason === reason && message.test(e.message));
  }
  writeFileSync(join(dir, 'ok.json'), '{}');
  assert.equal(await readBoundedFile(join(dir, 'ok.json')), '{}');
});

const bin = join(repoRoot, 'dist', 'cli.js');

/** The built CLI as a child process, killed after 15 s so a hang fails instead of blocking. */
function runBin(args: string[], cwd: string): { code: number | null; err: string; ms: number } {
  assert.ok(existsSync(bin), 'npm run build first');
  const started = performance.now();
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', timeout: 15_000, killSignal: 'SIGKILL', env: { PATH: process.env.PATH } });
  return { code: r.status, err: r.stderr, ms: performance.now() - started };
}

/** Exit 2, promptly, one `agent-seer:` line on stderr matching `expected`, no stack. */
function assertOneLine(r: { code: number | null; err: string; ms: number }, expected: RegExp): void {
  assert.equal(r.code, 2, `exit ${r.code} after ${r.ms.toFixed(0)} ms: ${r.err}`);
  assert.ok(r.ms < 5000, `took ${r.ms.toFixed(0)} ms`);
  const lines = r.err
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('agent-seer: ') && !/judging|warning/.test(l));
  assert.equal(lines.length, 1, r.err);
  assert.match(lines[0]!, expected);
  assert.doesNotMatch(r.err, /\n\s+at /);
}

test('a FIFO given to inspect, report, judge, export or as a manifest spec.source: exit 2, one line, no hang', async (t) => {
  if (process.platform === 'win32') return t.skip('no mkfifo');
  const dir = tempDir();
  const fifo = join(dir, 'pipe.json');
  execFileSync('mkfifo', [fifo]);
  const gen = runBin(['generate', join(specsDir, 'slack.json'), '--out', 'h', '--simple', '2', '--complex', '0'], dir);
  assert.equal(gen.code, 0, gen.err);
  // A harness whose manifest names the FIFO as its spec, and keeps no spec copy of its own.
  const manifestFile = join(dir, 'h', 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { spec: { source: string } };
  manifest.spec.source = fifo;
  mkdirSync(join(dir, 'm'));
  execFileSync('cp', ['-r', join(dir, 'h', 'records'), join(dir, 'm', 'records')]);
  writeFileSync(join(dir, 'm', 'manifest.json'), JSON.stringify(manifest));
  const cases: [string, string[], RegExp][] = [
    ['inspect', ['inspect', 'pipe.json'], /pipe\.json: a FIFO, not a regular file$/],
    ['report --spec', ['report', 'h', '--spec', 'pipe.json'], /pipe\.json: a FIFO, not a regular file$/],
    ['judge --spec', ['judge', 'h', '--spec', 'pipe.json'], /pipe\.json: a FIFO, not a regular file$/],
    ['export --spec', ['export', 'h', '--spec', 'pipe.json'], /pipe\.json: a FIFO, not a regular file$/],
    ['judge, spec.source', ['judge', 'm'], /pipe\.json: a FIFO, not a regular file$/],
    ['export, spec.source', ['export', 'm'], /pipe\.json: a FIFO, not a regular file$/],
    ['generate', ['generate', 'pipe.json'], /pipe\.json: a FIFO, not a regular file$/],
  ];
  for (const [name, args, expected] of cases) {
    await t.test(name, () => assertOneLine(runBin(args, dir), expected));
  }
  await t.test('report, spec.source: the report is made without the spec, and says why', () => {
    const r = runBin(['report', 'm'], dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /pipe\.json: a FIFO, not a regular file/);
  });
  await t.test('a FIFO among the records is named, not read', () => {
    execFileSync('mkfifo', [join(dir, 'h', 'records', 'zz.json')]);
    const r = runBin(['judge', 'h'], dir);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /zz\.json: a FIFO, not a regular file/);
  });
});

test('a file over the size limit and a count over its maximum: exit 2, one line', async (t) => {
  const dir = tempDir();
  execFileSync('truncate', ['-s', '300M', join(dir, 'huge.json')]);
  await t.test('inspect, sparse 300 MB file', () =>
    assertOneLine(runBin(['inspect', 'huge.json'], dir), /huge\.json: too large \(300 MiB; the limit is 64 MiB\)$/),
  );
  await t.test('generate, sparse 300 MB file', () => assertOneLine(runBin(['generate', 'huge.json'], dir), /huge\.json: too large/));
  await t.test('--simple 100000000', () =>
    assertOneLine(runBin(['generate', join(specsDir, 'slack.json'), '--simple', '100000000'], dir), /--simple is at most 10000, got "100000000"$/),
  );
  await t.test('--complex, --concurrency, --rpm', () => {
    assertOneLine(runBin(['generate', join(specsDir, 'slack.json'), '--complex', '99999999'], dir), /--complex is at most/);
    assertOneLine(runBin(['generate', join(specsDir, 'slack.json'), '--concurrency', '99999999'], dir), /--concurrency is at most/);
    assertOneLine(runBin(['generate', join(specsDir, 'slack.json'), '--rpm', '1e12'], dir), /--rpm is at most 1000000, got "1e12"$/);
  });
  await t.test('--resamples', () => assertOneLine(runBin(['report', dir, '--resamples', '100000000'], dir), /--resamples is at most 100000/));
  await t.test('--timeout', () =>
    assertOneLine(runBin(['snapshot', 'mcp.json', '--out', 'o', '--timeout', '1e10'], dir), /--timeout is at most 86400 seconds, got "1e10"$/),
  );
});
