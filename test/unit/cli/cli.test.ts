/** The CLI end to end: in-process through `run` for output and exit codes, and the built binary for no-stack-trace. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { cli } from '../cliRunner';
import { repoRoot, specsDir, configsDir } from '../fixturePaths';

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-cli-'));
  made.push(dir);
  return dir;
}
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

test('inspect --json reports the fixture README numbers and findings for a spec', async () => {
  const r = await cli(['inspect', join(specsDir, 'git-official.json'), '--json']);
  assert.equal(r.code, 0, r.err);
  const json = JSON.parse(r.out) as { servers: Record<string, unknown>[]; problems: unknown[] };
  assert.equal(json.servers.length, 1);
  const s = json.servers[0]!;
  assert.equal(s.name, 'mcp-git');
  assert.equal(s.tools, 12);
  assert.equal(s.meanParams, 2.33);
  assert.equal(s.maxParams, 4);
  assert.equal(s.optionalRatio, 0.32);
  assert.equal(s.maxDepth, 2);
  const findings = s.findings as { code: string; severity: string; tool: string; message: string }[];
  assert.ok(findings.length > 0);
  for (const f of findings) {
    assert.ok(f.code && f.severity && f.tool && f.message, JSON.stringify(f));
  }
  assert.deepEqual(json.problems, []);
});

test('inspect prints a profile table with one row per spec', async () => {
  const r = await cli(['inspect', join(specsDir, 'filesystem.json'), join(specsDir, 'redis-mcp-0.5.0.json')]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.match(lines[0]!, /server\s+tools\s+mean params\s+max params\s+optional %\s+max depth/);
  assert.ok(
    lines.some((l) => /^secure-filesystem-server\s+14\s+1\.79\s+3\s+32\s+3\b/.test(l)),
    r.out,
  );
  assert.ok(
    lines.some((l) => /^Redis MCP Server\s+47\s+2\.15\s+6\s+34\s+2\b/.test(l)),
    r.out,
  );
});

test('inspect on a folder finds specs and config files, and names servers without a snapshot', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, '.vscode'));
  copyFileSync(join(configsDir, 'vscode-mcp-json', 'microsoft__vscode__.vscode_mcp.json'), join(dir, '.vscode', 'mcp.json'));
  mkdirSync(join(dir, 'specs'));
  copyFileSync(join(specsDir, 'slack.json'), join(dir, 'specs', 'slack.json'));
  const r = await cli(['inspect', dir, '--json']);
  assert.equal(r.code, 0, r.err);
  const json = JSON.parse(r.out) as { servers: { name: string }[]; unsnapshotted: { name: string }[] };
  assert.deepEqual(
    json.servers.map((s) => s.name),
    ['Slack MCP Server'],
  );
  assert.equal(json.unsnapshotted.length, 1);
});

test('bad input: one line naming the file (and position), exit 2', async (t) => {
  const dir = tempDir();
  const truncated = join(dir, 'truncated.json');
  writeFileSync(truncated, readFileSync(join(specsDir, 'slack.json'), 'utf8').slice(0, 300));
  const binary = join(dir, 'blob.json');
  writeFileSync(binary, Buffer.from([0x7b, 0x00, 0x01, 0x02, 0xff, 0xfe]));
  const notSpec = join(dir, 'package.json');
  writeFileSync(notSpec, JSON.stringify({ name: 'x', version: '1.0.0' }));
  const cases: [string, string[], RegExp][] = [
    ['missing file', [join(dir, 'nope.json')], /nope\.json: no such file/],
    ['truncated JSON', [truncated], /truncated\.json:\d+:\d+: invalid JSON/],
    ['binary file', [binary], /blob\.json: binary file/],
    ['not a spec', [notSpec], /package\.json: not a tool spec/],
  ];
  for (const [name, args, expected] of cases) {
    await t.test(name, async () => {
      const r = await cli(['inspect', ...args]);
      assert.equal(r.code, 2);
      assert.match(r.err, expected);
      assert.equal(r.err.trim().split('\n').length, 1, r.err);
      assert.doesNotMatch(r.err, /\n\s+at /);
    });
  }
});

test('a spec with a broken tool reports the other tools plus a finding for that one', async () => {
  const dir = tempDir();
  const spec = JSON.parse(readFileSync(join(specsDir, 'slack.json'), 'utf8')) as { tools: unknown[] };
  spec.tools.splice(2, 0, { description: 'an entry without a name', inputSchema: { type: 'object' } });
  const file = join(dir, 'partly-broken.json');
  writeFileSync(file, JSON.stringify(spec, null, 2));
  const r = await cli(['inspect', file, '--json']);
  assert.equal(r.code, 0, r.err);
  const json = JSON.parse(r.out) as { servers: { tools: number; findings: { code: string; tool: string | null }[] }[] };
  assert.equal(json.servers[0]!.tools, 8);
  const invalid = json.servers[0]!.findings.filter((f) => f.code === 'invalid-tool');
  assert.equal(invalid.length, 1, JSON.stringify(json.servers[0]!.findings.map((f) => f.code)));
});

test('the gitlab spec with broken schemas loads with a broken-schema finding per tool', async () => {
  const r = await cli(['inspect', join(specsDir, 'gitlab-broken-empty-schemas.json'), '--json']);
  assert.equal(r.code, 0, r.err);
  const s = (JSON.parse(r.out) as { servers: { tools: number; findings: { code: string; tool: string }[] }[] }).servers[0]!;
  assert.equal(s.tools, 9);
  const broken = new Set(s.findings.filter((f) => f.code === 'broken-schema').map((f) => f.tool));
  assert.equal(broken.size, 9);
});

test('detect --json lists definitions with name, file, format, transport, command, args, url', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, '.cursor'));
  copyFileSync(join(configsDir, 'cursor-mcp-json', '0x7067__agent-bridge-mcp__.cursor_mcp.json'), join(dir, '.cursor', 'mcp.json'));
  writeFileSync(join(dir, '.mcp.json'), '{ "mcpServers": { "remote": { "type": "http", "url": "http://127.0.0.1:1/mcp" } } }');
  const r = await cli(['detect', dir, '--json']);
  assert.equal(r.code, 0, r.err);
  const json = JSON.parse(r.out) as {
    definitions: { name: string; format: string; transport: string; command: string | null; url: string | null; file: string }[];
  };
  assert.equal(json.definitions.length, 2);
  const remote = json.definitions.find((d) => d.name === 'remote')!;
  assert.equal(remote.transport, 'http');
  assert.equal(remote.url, 'http://127.0.0.1:1/mcp');
  assert.equal(remote.format, 'claude-code');
  const cursor = json.definitions.find((d) => d.format === 'cursor')!;
  assert.equal(cursor.transport, 'stdio');
  assert.ok(cursor.command);
});

test('detect on a file or a missing folder is bad input', async () => {
  const r = await cli(['detect', join(specsDir, 'slack.json')]);
  assert.equal(r.code, 2);
  assert.match(r.err, /not a folder/);
});

test('unknown commands and options are bad input with a one-line error', async () => {
  for (const args of [['frobnicate'], ['inspect', '--nope', 'x'], ['snapshot', 'x.json'], ['help', 'frobnicate']]) {
    const r = await cli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
  }
});

test('a typo in a command or an option gets the nearest name; a name near nothing gets none', async () => {
  const command = await cli(['genrate', 'x.json']);
  assert.equal(command.code, 2);
  assert.match(command.err, /unknown command "genrate"; did you mean "generate"\?/);
  const help = await cli(['help', 'genrate']);
  assert.equal(help.code, 2, 'help for a command that does not exist is no help');
  assert.equal(help.out, '');
  assert.match(help.err, /did you mean "generate"\?/);
  const option = await cli(['generate', 'x.json', '--simpel', '3']);
  assert.equal(option.code, 2);
  assert.equal(option.err.trim(), 'agent-seer: generate: unknown option --simpel; did you mean --simple? (agent-seer generate --help lists the options)');
  const far = await cli(['generate', 'x.json', '--frobnicate']);
  assert.match(far.err, /unknown option --frobnicate \(agent-seer generate --help/);
  assert.doesNotMatch(far.err, /did you mean/);
  assert.doesNotMatch((await cli(['frobnicate'])).err, /did you mean/);
});

test('openai without a model is refused the same way by --judge and --agent (no model is assumed for an OpenAI-compatible endpoint)', async () => {
  const dir = join(tempDir(), 'h');
  assert.equal((await cli(['generate', join(specsDir, 'slack.json'), '--out', dir, '--simple', '1', '--complex', '0'])).code, 0);
  for (const [args, flag] of [
    [['judge', dir, '--judge', 'openai'], '--judge'],
    [['run', dir, '--agent', 'openai'], '--agent'],
  ] as const) {
    const r = await cli([...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.err.trim(), `agent-seer: ${flag} openai needs a model: openai:MODEL`);
  }
});

test('snapshot lists a live stdio server from a config file and writes a snapshot inspect can read', async () => {
  const dir = tempDir();
  const server = join(repoRoot, 'out', 'test', 'fixtures', 'servers', 'fixtureServer.js');
  mkdirSync(join(dir, '.vscode'));
  writeFileSync(
    join(dir, '.vscode', 'mcp.json'),
    `{
      // a JSONC comment, as real files have
      "servers": {
        "fixture": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(server)}], },
        "other": { "command": "false" }
      }
    }`,
  );
  const ambiguous = await cli(['snapshot', join(dir, '.vscode', 'mcp.json'), '--out', join(dir, 'snaps')]);
  assert.equal(ambiguous.code, 2);
  assert.match(ambiguous.err, /several servers \(fixture, other\)/);

  const r = await cli(['snapshot', join(dir, '.vscode', 'mcp.json'), '--server', 'fixture', '--out', join(dir, '.agentseer', 'specs'), '--json'], dir);
  assert.equal(r.code, 0, r.err);
  const summary = JSON.parse(r.out) as { file: string; tools: number; pages: number };
  assert.ok(summary.tools >= 7);
  assert.equal(summary.pages, 3);
  assert.ok(existsSync(summary.file));
  assert.deepEqual(readdirSync(join(dir, '.agentseer', 'specs')), ['fixture.json']);

  // inspect on the folder now finds the snapshot and no longer lists the server as unsnapshotted.
  const inspected = await cli(['inspect', dir, '--json']);
  const json = JSON.parse(inspected.out) as { servers: { tools: number }[]; unsnapshotted: { name: string }[] };
  assert.equal(json.servers.length, 1);
  assert.equal(json.servers[0]!.tools, summary.tools);
  assert.deepEqual(
    json.unsnapshotted.map((u) => u.name),
    ['other'],
  );
});

test('snapshot of a server that exits at once fails with exit 1 and its stderr in one line', async () => {
  const dir = tempDir();
  const server = join(repoRoot, 'out', 'test', 'fixtures', 'servers', 'exitingServer.js');
  writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { dying: { command: process.execPath, args: [server] } } }));
  const r = await cli(['snapshot', join(dir, '.mcp.json'), '--out', join(dir, 'out'), '--timeout', '10']);
  assert.equal(r.code, 1);
  const lines = r.err.trim().split('\n');
  assert.match(lines[lines.length - 1]!, /dying/);
  assert.ok(!existsSync(join(dir, 'out', 'dying.json')));
});

test('snapshot needs unresolved inputs named on the command line', async () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'mcp.json'),
    JSON.stringify({
      inputs: [{ id: 'token', type: 'promptString', password: true }],
      servers: { gh: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${input:token}' } } },
    }),
  );
  mkdirSync(join(dir, '.vscode'));
  copyFileSync(join(dir, 'mcp.json'), join(dir, '.vscode', 'mcp.json'));
  const r = await cli(['snapshot', join(dir, '.vscode', 'mcp.json'), '--out', join(dir, 'o')]);
  assert.equal(r.code, 2);
  assert.match(r.err, /--input token=VALUE/);
});

test('the built binary prints no stack trace on bad input and exits 2', () => {
  const bin = join(repoRoot, 'dist', 'cli.js');
  assert.ok(existsSync(bin), 'npm run build first');
  const dir = tempDir();
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{"tools": [ {"name": "x", }');
  const r = spawnSync(process.execPath, [bin, 'inspect', bad], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^agent-seer: .*bad\.json:1:\d+: invalid JSON/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /agent-seer inspect/);
});

test('export gives an agent the tools and task prompts, and nothing of the oracle', async () => {
  const dir = tempDir();
  const gen = await cli(['generate', join(specsDir, 'slack.json'), '--out', join(dir, 'h'), '--simple', '3', '--complex', '3', '--json']);
  assert.equal(gen.code, 0, gen.err);
  const r = await cli(['export', join(dir, 'h')]);
  assert.equal(r.code, 0, r.err);
  const view = JSON.parse(r.out) as { server: string; tools: { name: string; inputSchema: unknown }[]; tasks: Record<string, unknown>[] };
  assert.equal(view.server, 'Slack MCP Server');
  assert.equal(view.tools.length, 8);
  assert.ok(view.tools.every((t) => t.inputSchema));
  assert.ok(view.tasks.length >= 6);
  for (const task of view.tasks) assert.deepEqual(Object.keys(task).sort(), ['id', 'prompt', 'turns']);
  // No expected call, mock output or expected response text leaks.
  const records = readdirSync(join(dir, 'h', 'records')).map(
    (f) => JSON.parse(readFileSync(join(dir, 'h', 'records', f), 'utf8')) as { expected_response: string },
  );
  for (const rec of records) assert.ok(!r.out.includes(rec.expected_response), 'expected response leaked');
  assert.doesNotMatch(r.out, /expected_tools|mock_outputs|expected_response|"arguments"/);

  const notHarness = await cli(['export', dir + '/nope']);
  assert.equal(notHarness.code, 2);
});

test('paths: a file: URL, an --out that is a file or a folder, exit 2 with one line; export --out creates its folder', async (t) => {
  const dir = tempDir();
  const gen = await cli(['generate', join(specsDir, 'slack.json'), '--out', join(dir, 'h'), '--simple', '2', '--complex', '0']);
  assert.equal(gen.code, 0, gen.err);
  writeFileSync(join(dir, 'afile'), 'x');
  const url = (p: string): string => pathToFileURL(p).href;
  const cases: [string, string[], RegExp][] = [
    ['inspect file: URL', ['inspect', url(join(specsDir, 'slack.json'))], /^agent-seer: input file:\/\/\S+slack\.json: a file: URL, not a path/],
    ['generate file: URL', ['generate', url(join(specsDir, 'slack.json'))], /^agent-seer: input file:\/\/\S+: a file: URL, not a path/],
    ['generate --out file: URL', ['generate', join(specsDir, 'slack.json'), '--out', url(join(dir, 'g'))], /^agent-seer: --out file:\/\/\S+: a file: URL/],
    ['report --out file: URL', ['report', join(dir, 'h'), '--out', url(join(dir, 'r.md'))], /^agent-seer: --out file:\/\/\S+: a file: URL/],
    ['judge file: URL', ['judge', url(join(dir, 'h'))], /^agent-seer: harness folder file:\/\/\S+: a file: URL/],
    [
      'generate --out an existing file',
      ['generate', join(specsDir, 'slack.json'), '--out', join(dir, 'afile')],
      /^agent-seer: --out \S+afile: exists and is not a folder$/,
    ],
    ['export --out a folder', ['export', join(dir, 'h'), '--out', join(dir, 'h')], /^agent-seer: --out \S+h: exists and is not a regular file$/],
    ['report --out a folder', ['report', join(dir, 'h'), '--out', dir], /^agent-seer: --out \S+: exists and is not a regular file$/],
    [
      'export --out below a file',
      ['export', join(dir, 'h'), '--out', join(dir, 'afile', 'x.json')],
      /^agent-seer: --out \S+x\.json: cannot create its folder \(EEXIST\)$/,
    ],
  ];
  for (const [name, args, expected] of cases) {
    await t.test(name, async () => {
      const r = await cli(args);
      assert.equal(r.code, 2, r.err);
      const lines = r.err
        .trim()
        .split('\n')
        .filter((l) => !/generating|computing|read \d+ records/.test(l));
      assert.equal(lines.length, 1, r.err);
      assert.match(lines[0]!, expected);
    });
  }
  assert.ok(!existsSync(join(dir, 'file:')), 'no folder named "file:" was made');
  await t.test('export --out into a missing folder creates it and writes atomically', async () => {
    const out = join(dir, 'new', 'deeper', 'view.json');
    const r = await cli(['export', join(dir, 'h'), '--out', out]);
    assert.equal(r.code, 0, r.err);
    const view = JSON.parse(readFileSync(out, 'utf8')) as { tasks: unknown[] };
    assert.ok(view.tasks.length >= 2);
    // The temp file of the atomic write is gone.
    assert.deepEqual(readdirSync(join(dir, 'new', 'deeper')), ['view.json']);
  });
});

test('inspect reports client compatibility with each finding citing its source; --clients picks them', async () => {
  const r = await cli(['inspect', join(specsDir, 'twilio-api-v2010.json'), '--json']);
  assert.equal(r.code, 0, r.err);
  const json = JSON.parse(r.out) as { servers: { findings: { code: string; message: string; source?: string }[] }[] };
  const limit = json.servers[0]?.findings.filter((f) => f.code === 'vscode-tool-limit');
  assert.equal(limit?.length, 1);
  assert.equal(limit?.[0]?.source, 'https://code.visualstudio.com/docs/copilot/agents/agent-tools');
  assert.match(limit?.[0]?.message ?? '', /197 tools, more than the 128/);
  assert.equal(json.servers[0]?.findings.filter((f) => f.code === 'openai-strict-schema').length, 0, 'openai is not checked by default');

  const text = await cli(['inspect', join(specsDir, 'sequential-thinking.json'), '--clients', 'openai']);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /openai-strict-schema\s+sequentialthinking: OpenAI strict mode refuses this schema/);
  // Text wraps at 100 columns, continuation lines indented: read each finding and code as one line.
  assert.match(text.out.replace(/\n {4,}/g, ' '), /openai-strict-schema: .*\(https:\/\/platform\.openai\.com\/docs\/guides\/function-calling#strict-mode\)/);
  assert.doesNotMatch(text.out, /gemini-schema/);

  const none = await cli(['inspect', join(specsDir, 'twilio-api-v2010.json'), '--clients', 'none', '--json']);
  assert.ok(!none.out.includes('vscode-tool-limit'));

  const bad = await cli(['inspect', join(specsDir, 'slack.json'), '--clients', 'claude']);
  assert.equal(bad.code, 2);
  assert.equal(bad.err.trim(), 'agent-seer: --clients: unknown client "claude" (use gemini, openai, vscode, comma-separated, or none)');
});
