/**
 * Workspace detection over a real folder: fixture configs laid out under their real paths, spec
 * snapshots, junk JSON, and heavy folders that must not be walked.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { detectWorkspace } from '../../../../src/core/discovery/detect';
import { configsDir, specsDir } from '../../fixturePaths';

let root: string;

function put(rel: string, content: string | { from: string }): void {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  if (typeof content === 'string') writeFileSync(path, content);
  else copyFileSync(content.from, path);
}

const config = (f: string) => ({ from: join(configsDir, f) });
const spec = (f: string) => ({ from: join(specsDir, f) });
const rel = (p: string) => relative(root, p).split(sep).join('/');

before(() => {
  root = mkdtempSync(join(tmpdir(), 'agent-seer-detect-'));
  // Configs under their real paths.
  put('.vscode/mcp.json', config('vscode-mcp-json/microsoft__vscode-copilot-chat__.vscode_mcp.json'));
  put('.vscode/settings.json', config('vscode-settings-json/rybkagreen__estimate-service__.vscode_settings.json'));
  put('.mcp.json', config('claude-code-mcp-json/modelcontextprotocol__servers__.mcp.json'));
  put('.cursor/mcp.json', config('cursor-mcp-json/0xobelisk__dubhe__.cursor_mcp.json')); // not a config → problem
  put('apps/bridge/.cursor/mcp.json', config('cursor-mcp-json/0x7067__agent-bridge-mcp__.cursor_mcp.json'));
  put('.codex/config.toml', config('codex-toml/0gnm0-afk__fng-chatbot-mcp-deepseek__.codex_config.toml'));
  put('.continue/mcpServers/x.yaml', config('continue-yaml/CeeEffEff__mcp-examples__.continue_mcpServers_memory-mcp-server-codebase.yaml'));
  put('server.json', config('mcp-registry-server-json/neondatabase__mcp-server-neon__server.json'));
  put('.windsurf/mcp_config.json', config('windsurf/Chisanan232__ai-development-config__.windsurf_mcp_config.json'));
  put('.gemini/settings.json', config('gemini-cli/5throck__ai-workspace-standards__.gemini_settings.json'));
  put('.zed/settings.json', '{"theme": "One"}'); // settings without servers: nothing, quietly
  put('web/server.json', '{"port": 8080}'); // a server.json that is someone else's: nothing, quietly
  put('tools/mcp.json', '{"mcpServers": {"generic": {"command": "node", "args": ["srv.js"]}}}'); // generic, found by content
  // Spec snapshots, one in a hidden folder, one a bare array, one a JSON-RPC response.
  put('specs/everart.json', spec('everart.json'));
  put('.agentseer/specs/brave-search.json', spec('brave-search.json'));
  put('captures/list.json', JSON.stringify([{ name: 'echo', description: 'Echo', inputSchema: { type: 'object' } }]));
  put('captures/rpc.json', JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'a', inputSchema: { type: 'object' } }] } }));
  // Junk JSON that must not be taken for specs or configs.
  put('data/numbers.json', '[1, 2, 3]');
  put('data/empty.json', '');
  put('data/names.json', '[{"name": "not a tool"}]');
  put('data/tools-word.json', '{"tools": "hammer, saw"}');
  put('data/nested.json', '{"settings": {"mcpServers": {"x": {"command": "y"}}}}');
  // A "tools" list starting beyond the 64 KB sniff window is deliberately not read (see detectWorkspace).
  put('data/big.json', `{"rows": [${Array.from({ length: 20000 }, (_, i) => `{"i": ${i}}`).join(',')}], "tools": [{"name": "late"}]}`);
  put('data/broken-spec.json', '{"tools": [{"name": "x", "inputSchema": {"type": "object"');
  put('data/broken-other.json', '{"tools": [1, 2');
  put('package.json', JSON.stringify({ name: 'p', tools: [{ name: 'would-be-a-spec' }] }));
  put('notes.md', '# notes');
  // Heavy folders: everything inside is ignored, even valid configs and specs.
  put('node_modules/pkg/server.json', config('mcp-registry-server-json/github__github-mcp-server__server.json'));
  put('node_modules/pkg/spec.json', spec('everart.json'));
  put('packages/a/node_modules/.mcp.json', config('claude-code-mcp-json/modelcontextprotocol__servers__.mcp.json'));
  put('.git/spec.json', spec('everart.json'));
  put('dist/spec.json', spec('everart.json'));
  put('out/.vscode/mcp.json', config('vscode-mcp-json/microsoft__vscode__.vscode_mcp.json'));
  put('.venv/lib/spec.json', spec('everart.json'));
  put('target/spec.json', spec('everart.json'));
});

after(() => rmSync(root, { recursive: true, force: true }));

test('detectWorkspace finds every config and spec, skips junk and heavy folders, and reports non-configs', async () => {
  const found = await detectWorkspace(root);

  const byFile = new Map<string, string[]>();
  for (const d of found.definitions) byFile.set(rel(d.file), [...(byFile.get(rel(d.file)) ?? []), `${d.format}:${d.name}`]);
  assert.deepEqual(Object.fromEntries(byFile), {
    '.codex/config.toml': ['codex-toml:fng_chatbot'],
    '.continue/mcpServers/x.yaml': ['continue-yaml:Codebase Memory'],
    '.gemini/settings.json': ['gemini-cli:graft'],
    '.mcp.json': ['claude-code:mcp-docs', 'claude-code:sequential-thinking'],
    '.vscode/mcp.json': ['vscode-mcp-json:vscode-playwright-mcp'],
    '.vscode/settings.json': ['vscode-settings:estimate-service-shared'],
    '.windsurf/mcp_config.json': [
      'windsurf:fetch',
      'windsurf:git',
      'windsurf:github-mcp-server',
      'windsurf:memory',
      'windsurf:slack',
      'windsurf:sonarqube',
      'windsurf:terraform',
      'windsurf:jira',
      'windsurf:clickup',
      'windsurf:codecov',
      'windsurf:datadog',
      'windsurf:sentry',
      'windsurf:confluence',
    ],
    'apps/bridge/.cursor/mcp.json': ['cursor:agent-bridge'],
    'server.json': ['mcp-registry:com.neon/mcp (streamable-http)', 'mcp-registry:com.neon/mcp (sse)'],
    'tools/mcp.json': ['mcp-servers-json:generic'],
  });
  // Definitions are sorted by file, in file order within a file.
  const files = found.definitions.map((d) => d.file);
  assert.deepEqual(
    files,
    [...files].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  assert.equal(found.definitions.filter((d) => d.disabled).length, 6);

  assert.deepEqual(found.specFiles.map(rel), ['.agentseer/specs/brave-search.json', 'captures/list.json', 'captures/rpc.json', 'specs/everart.json']);

  assert.deepEqual(
    found.problems.map((p) => [rel(p.file), p.line ?? null, p.message.replace(/:.*/, '')]),
    [
      ['.cursor/mcp.json', null, 'not an MCP config'],
      ['data/broken-spec.json', 1, 'invalid JSON'],
    ],
  );
});

test('detectWorkspace is deterministic across runs', async () => {
  const a = await detectWorkspace(root);
  const b = await detectWorkspace(root);
  assert.deepEqual(a, b);
});

test('maxFiles stops the scan and says so', async () => {
  const found = await detectWorkspace(root, { maxFiles: 3 });
  const last = found.problems.find((p) => p.file === root);
  assert.match(last?.message ?? '', /scan stopped after 3 files/);
  assert.ok(found.definitions.length + found.specFiles.length < 10);
});

test('an aborted signal rejects the scan', async () => {
  const controller = new AbortController();
  controller.abort(new Error('cancelled by test'));
  await assert.rejects(detectWorkspace(root, { signal: controller.signal }), /cancelled by test/);
  // Aborting mid-scan also rejects, rather than returning a partial result as if complete.
  const mid = new AbortController();
  const running = detectWorkspace(root, { signal: mid.signal });
  mid.abort(new Error('stop'));
  await assert.rejects(running, /stop/);
});

test('a missing root gives an empty result with a problem, not a throw', async () => {
  const missing = join(root, 'does-not-exist');
  const found = await detectWorkspace(missing);
  assert.deepEqual([found.definitions, found.specFiles, found.problems], [[], [], [{ file: missing, message: 'cannot list folder: ENOENT' }]]);
});

test("a harness folder's spec.json copy and records are not workspace specs", async () => {
  const root = mkdtempSync(join(tmpdir(), 'agent-seer-detect-harness-'));
  mkdirSync(join(root, 'specs'));
  copyFileSync(join(specsDir, 'slack.json'), join(root, 'specs', 'slack.json'));
  const harness = join(root, 'evals', 'slack');
  mkdirSync(join(harness, 'records'), { recursive: true });
  copyFileSync(join(specsDir, 'slack.json'), join(harness, 'spec.json'));
  writeFileSync(join(harness, 'manifest.json'), '{"formatVersion":1}');
  // A spec-shaped file inside records/ would be found if records/ were walked.
  copyFileSync(join(specsDir, 'slack.json'), join(harness, 'records', 'odd.json'));
  const found = await detectWorkspace(root);
  assert.deepEqual(found.specFiles, [join(root, 'specs', 'slack.json')]);
  rmSync(root, { recursive: true, force: true });
});
