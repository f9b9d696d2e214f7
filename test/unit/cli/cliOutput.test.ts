/**
 * What the built CLI writes to a real terminal or pipe: control characters from specs and
 * servers are escaped, a reader that goes away early ends output quietly, detect masks secrets.
 * Runs dist/cli.js as a process (npm run build first), since the in-process runner bypasses the
 * real streams.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { repoRoot, specsDir } from '../fixturePaths';

const bin = join(repoRoot, 'dist', 'cli.js');
const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-out-'));
  made.push(dir);
  return dir;
}
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

function runBin(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 });
}

/** Raw bytes a terminal would act on: C0 controls but tab/newline, DEL, C1 controls. */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const TITLE = '\u001b]0;pwned\u0007';
const CLEAR = '\u001b[2J';
const CSI = '\u009b31m';

function hostileSpec(dir: string): string {
  const file = join(dir, 'hostile.json');
  writeFileSync(
    file,
    JSON.stringify({
      server: { name: `evil${TITLE}server${CLEAR}`, version: '1' },
      tools: [
        { name: `read${TITLE}`, description: `Reads.${CLEAR}`, inputSchema: { type: 'object', properties: { p: { type: 'string' } } } },
        { name: `wipe${CLEAR}${CSI}\nline`, inputSchema: { type: 'object' } },
      ],
    }),
  );
  return file;
}

test('inspect text output escapes ESC, BEL and C1 controls from spec names instead of sending them raw', () => {
  const spec = hostileSpec(tempDir());
  const r = runBin(['inspect', spec]);
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout, RAW_CONTROL);
  assert.doesNotMatch(r.stderr, RAW_CONTROL);
  assert.ok(r.stdout.includes('evil\\u001b]0;pwned\\u0007server\\u001b[2J'), r.stdout);
  assert.ok(r.stdout.includes('wipe\\u001b[2J\\u009b31m\\u000aline'), 'a newline inside a name stays inside its line');
});

test('inspect --json stays valid JSON with the same names and no raw control bytes (C1 included)', () => {
  const spec = hostileSpec(tempDir());
  const r = runBin(['inspect', spec, '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout, RAW_CONTROL);
  const json = JSON.parse(r.stdout) as { servers: { name: string; findings: { tool: string | null }[] }[] };
  assert.equal(json.servers[0]?.name, `evil${TITLE}server${CLEAR}`);
  const tools = new Set(json.servers[0]?.findings.map((f) => f.tool));
  assert.ok(tools.has(`wipe${CLEAR}${CSI}\nline`), [...tools].join(', '));
});

test('detect text output escapes control characters in server names from a config', () => {
  const dir = tempDir();
  writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { [`srv${TITLE}${CLEAR}`]: { command: 'node', args: ['server.js'] } } }));
  const r = runBin(['detect', dir]);
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout, RAW_CONTROL);
  // The name is escaped whole; the 100-column table may cut it in the middle (after escaping).
  assert.ok(r.stdout.includes('srv\\u001b]0;pw') && r.stdout.includes('\\u001b[2J  '), r.stdout);
  assert.ok(runBin(['detect', dir, '--json']).stdout.includes('srv\\u001b]0;pwned\\u0007\\u001b[2J'));
});

test('inspect | head -1: a reader that closes early ends the CLI quietly (exit 0, no EPIPE trace)', async () => {
  // The fixture specs produce ~450 KB of text, far beyond a pipe's buffer: writes go on after the close.
  const child = spawn(process.execPath, [bin, 'inspect', specsDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const closed = once(child, 'close');
  const [first] = (await once(child.stdout, 'data')) as [Buffer];
  assert.match(first.toString(), /^server\s+tools/);
  child.stdout.destroy(); // the reader goes away, like `head -1`
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await closed) as [number | null];
  clearTimeout(timer);
  assert.doesNotMatch(stderr, /EPIPE|\n\s+at /, stderr);
  assert.equal(code, 0, stderr);
});

test('detect masks literal secrets in args and URLs (JSON and text) and keeps variable references', () => {
  const dir = tempDir();
  mkdirSync(join(dir, '.vscode'));
  writeFileSync(
    join(dir, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        gh: { command: 'npx', args: ['-y', 'server-github', '--token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'API_KEY=plain-secret'] },
        remote: { type: 'http', url: 'https://mcp.example.com/mcp?api_key=hunter2&region=eu' },
      },
    }),
  );
  writeFileSync(
    join(dir, '.vscode', 'mcp.json'),
    JSON.stringify({
      servers: { ref: { type: 'stdio', command: 'node', args: ['s.js', '--api-key', '${input:key}'] } },
      inputs: [{ id: 'key', type: 'promptString', password: true }],
    }),
  );
  const json = runBin(['detect', dir, '--json']);
  assert.equal(json.status, 0, json.stderr);
  const text = runBin(['detect', dir]);
  assert.equal(text.status, 0, text.stderr);
  for (const out of [json.stdout, text.stdout]) {
    for (const secret of ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'plain-secret', 'hunter2'])
      assert.ok(!out.includes(secret), `${secret} printed:\n${out}`);
    assert.ok(out.includes('${input:key}'), 'variable references stay visible');
  }
  const defs = (JSON.parse(json.stdout) as { definitions: { name: string; args: string[]; url: string | null }[] }).definitions;
  assert.deepEqual(defs.find((d) => d.name === 'gh')?.args, ['-y', 'server-github', '--token', '***', 'API_KEY=***']);
  assert.equal(defs.find((d) => d.name === 'remote')?.url, 'https://mcp.example.com/mcp?api_key=***&region=eu');
  assert.deepEqual(defs.find((d) => d.name === 'ref')?.args, ['s.js', '--api-key', '${input:key}']);
});

test('inspect flags tool names OpenAI or Gemini refuse (a/b/c, NUL, a 1 MB name, RTL override) and never prints bidi controls raw', () => {
  const dir = tempDir();
  const file = join(dir, 'names.json');
  const RLO = '\u202e';
  const names = ['a/b/c', 'nul\u0000name', 'x'.repeat(1 << 20), `rtl${RLO}txt.exe`, 'dotted.name', 'fine_name-2'];
  const tools = names.map((name) => ({ name, description: 'Stores one entry of the test registry.', inputSchema: { type: 'object', properties: {} } }));
  writeFileSync(file, JSON.stringify({ server: { name: `names${RLO}`, version: '1' }, tools }));
  const r = runBin(['inspect', file]);
  assert.equal(r.status, 0, r.stderr);
  // Findings wrap at 100 columns (continuation lines indented 12): each read as one line.
  r.stdout = r.stdout.replace(/\n {12}/g, ' ');
  const refused = r.stdout.split('\n').filter((l) => l.includes('tool-name-refused') && l.includes('error'));
  assert.equal(refused.length, 5, r.stdout.slice(0, 3000));
  assert.match(r.stdout, /Tool name "a\/b\/c" is refused by OpenAI and Gemini: it contains "\/"/);
  assert.match(r.stdout, /Tool name "nul\\u0000name" is refused by OpenAI and Gemini: it contains U\+0000/);
  assert.match(r.stdout, /"x{60}… \(1,048,576 characters\)" is refused by OpenAI and Gemini: it is 1,048,576 characters long \(at most 64\)/);
  assert.match(r.stdout, /Tool name "dotted\.name" is refused by OpenAI:/);
  assert.ok(!r.stdout.includes('fine_name-2: Tool name'), 'a valid name is not flagged');
  // The 1 MB name is never printed whole.
  assert.ok(r.stdout.length < 20_000, `${r.stdout.length} characters of output`);
  assert.ok(!r.stdout.includes(RLO) && !r.stderr.includes(RLO), 'a right-to-left override reaches the terminal raw');
  assert.match(r.stdout, /rtl\\u202etxt\.exe/);
  const json = runBin(['inspect', file, '--json']);
  assert.ok(!json.stdout.includes(RLO));
  assert.ok((JSON.parse(json.stdout) as { servers: { findings: { code: string }[] }[] }).servers[0]!.findings.some((f) => f.code === 'tool-name-refused'));
});
