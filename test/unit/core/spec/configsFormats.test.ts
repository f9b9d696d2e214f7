/** Focused cases for each config adapter: the shapes and edge cases the fixtures do not all cover. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONFIG_GLOBS, formatForPath, parseConfig } from '../../../../src/core/spec/configs';
import type { ConfigFormat, ConfigParseResult, ServerDefinition } from '../../../../src/core/spec/configs/types';

const brief = (d: ServerDefinition) => ({
  name: d.name,
  transport: d.transport,
  inferred: d.transportInferred,
  command: d.command,
  args: d.args,
  url: d.url,
  disabled: d.disabled,
});

function only(result: ConfigParseResult): ServerDefinition {
  assert.equal(result.definitions.length, 1, JSON.stringify(result.problems));
  return result.definitions[0] as ServerDefinition;
}

test('formatForPath recognises every config location, at any depth and with either slash', () => {
  const cases: [string, ConfigFormat | undefined][] = [
    ['.vscode/mcp.json', 'vscode-mcp-json'],
    ['packages/app/.vscode/mcp.json', 'vscode-mcp-json'],
    ['C:\\work\\proj\\.vscode\\mcp.json', 'vscode-mcp-json'],
    ['.vscode/settings.json', 'vscode-settings'],
    ['.mcp.json', 'claude-code'],
    ['/abs/path/.mcp.json', 'claude-code'],
    ['.cursor/mcp.json', 'cursor'],
    ['claude_desktop_config.json', 'claude-desktop'],
    ['dotfiles/Claude/claude_desktop_config.json', 'claude-desktop'],
    ['.windsurf/mcp_config.json', 'windsurf'],
    ['mcp_config.json', 'windsurf'],
    ['.gemini/settings.json', 'gemini-cli'],
    ['.codex/config.toml', 'codex-toml'],
    ['.continue/mcpServers/memory.yaml', 'continue-yaml'],
    ['.continue/mcpServers/memory.yml', 'continue-yaml'],
    ['.continue/mcpServers/claude-style.json', 'mcp-servers-json'],
    ['.zed/settings.json', 'zed'],
    ['server.json', 'mcp-registry'],
    ['servers/github/server.json', 'mcp-registry'],
    // Not config locations:
    ['mcp.json', undefined],
    ['.vscode/launch.json', undefined],
    ['settings.json', undefined],
    ['config.toml', undefined],
    ['.continue/config.yaml', undefined],
    ['.continue/mcpServers/nested/x.yaml', undefined],
    ['my.mcp.json.bak', undefined],
    ['myserver.json', undefined],
  ];
  for (const [path, format] of cases) assert.equal(formatForPath(path), format, path);
});

test('every CONFIG_GLOBS pattern describes paths formatForPath recognises', () => {
  assert.ok(CONFIG_GLOBS.length >= 12);
  for (const glob of CONFIG_GLOBS) {
    assert.ok(glob.startsWith('**/'), glob);
    const example = glob.replace(/^\*\*\//, 'some/folder/').replace('*', 'example');
    assert.ok(formatForPath(example), `${glob} → ${example}`);
  }
});

test('VS Code settings: the dotted "mcp.servers" key and the nested form give the same server', () => {
  const server = '{"command": "node", "args": ["s.js"]}';
  const dotted = parseConfig(`{"editor.tabSize": 2, "mcp.servers": {"s": ${server}}}`, '.vscode/settings.json');
  const nested = parseConfig(
    `{"editor.tabSize": 2, "mcp": {"servers": {"s": ${server}}, "inputs": [{"id": "k", "type": "promptString"}]}}`,
    '.vscode/settings.json',
  );
  assert.deepEqual(brief(only(dotted)), brief(only(nested)));
  assert.deepEqual(brief(only(dotted)), { name: 's', transport: 'stdio', inferred: true, command: 'node', args: ['s.js'], url: undefined, disabled: false });
  assert.deepEqual(nested.inputs, [{ id: 'k', type: 'promptString' }]);
});

test('settings files without an MCP server map are not configs, and not problems either', () => {
  for (const [file, text] of [
    ['.vscode/settings.json', '{"editor.tabSize": 2, "mcp.toolApproval": "Manual", "chat.mcp.enabled": true}'],
    ['.gemini/settings.json', '{"mcp.toolApproval": "Manual", "mcp": {"allowed": ["x"]}}'],
    ['.zed/settings.json', '{"theme": "One Dark"}'],
    ['.codex/config.toml', 'model = "o3"\n'],
  ] as const) {
    const result = parseConfig(text, file);
    assert.deepEqual([result.isConfig, result.definitions, result.problems], [false, [], []], file);
  }
});

test('a Gemini settings file: mcp.toolApproval is not a server map; url is SSE, httpUrl is HTTP', () => {
  const result = parseConfig(
    `{"mcp.toolApproval": "Manual", "mcpServers": {
       "a": {"url": "https://x.example/events"},
       "b": {"httpUrl": "https://x.example/mcp", "headers": {"Authorization": "Bearer $TOKEN"}},
       "c": {"type": "http", "url": "https://x.example/sse"}}}`,
    '.gemini/settings.json',
  );
  assert.deepEqual(
    result.definitions.map((d) => [d.name, d.transport, d.transportInferred, d.url]),
    [
      ['a', 'sse', true, 'https://x.example/events'],
      ['b', 'http', true, 'https://x.example/mcp'],
      ['c', 'http', false, 'https://x.example/sse'],
    ],
  );
  assert.deepEqual(result.problems, []);
});

test('JSONC: comments of both kinds and trailing commas are read', () => {
  const result = parseConfig(
    `// workspace servers
    {
      "servers": {
        /* the main one */
        "main": {
          "type": "stdio", // explicit
          "command": "npx",
          "args": ["-y", "pkg",],
        },
      },
      "inputs": [],
    }`,
    '.vscode/mcp.json',
  );
  assert.deepEqual(brief(only(result)), {
    name: 'main',
    transport: 'stdio',
    inferred: false,
    command: 'npx',
    args: ['-y', 'pkg'],
    url: undefined,
    disabled: false,
  });
  assert.deepEqual(result.problems, []);
});

test('truncated JSON gives a problem with line and column, never a throw', () => {
  const text = '{\n  "mcpServers": {\n    "a": {"command": "node", "args": ["x"';
  const result = parseConfig(text, '.mcp.json');
  assert.equal(result.isConfig, false);
  assert.equal(result.definitions.length, 0);
  assert.equal(result.problems.length, 1);
  const p = result.problems[0];
  assert.equal(p?.file, '.mcp.json');
  assert.equal(p?.line, 3);
  assert.equal(p?.column, text.length - text.lastIndexOf('\n'));
  assert.match(p?.message ?? '', /^invalid JSON: /);
});

test('a binary file is a problem in every format, never a throw', () => {
  const binary = 'PK\u0003\u0004\u0000\u0000\u0008\u0000garbage\u0000';
  for (const file of ['.vscode/mcp.json', '.mcp.json', '.codex/config.toml', '.continue/mcpServers/x.yaml', 'server.json', '.zed/settings.json']) {
    const result = parseConfig(binary, file);
    assert.equal(result.isConfig, false, file);
    assert.match(result.problems[0]?.message ?? '', /binary/, file);
  }
});

test('invalid TOML and YAML say where', () => {
  const toml = parseConfig('[mcp_servers.a]\ncommand = "x"\nargs = [1,\n', '.codex/config.toml');
  assert.equal(toml.isConfig, false);
  assert.equal(toml.problems[0]?.line, 4);
  assert.match(toml.problems[0]?.message ?? '', /^invalid TOML: /);
  const yaml = parseConfig('mcpServers:\n  - name: a\n    command: [x\n', '.continue/mcpServers/x.yaml');
  assert.equal(yaml.isConfig, false);
  assert.ok((yaml.problems[0]?.line ?? 0) >= 3, JSON.stringify(yaml.problems));
  assert.match(yaml.problems[0]?.message ?? '', /^invalid YAML: /);
});

test('an MCP-named file that is not an MCP config says so and what it found', () => {
  const result = parseConfig('{"tools": [{"id": "x", "command": "npm test"}]}', '.cursor/mcp.json');
  assert.equal(result.isConfig, false);
  assert.deepEqual(
    result.problems.map((p) => p.message),
    ['not an MCP config: expected a top-level "mcpServers" object; found top-level key "tools"'],
  );
  const array = parseConfig('[1, 2]', '.vscode/mcp.json');
  assert.match(array.problems[0]?.message ?? '', /not an MCP config: expected a JSON object, found an array/);
});

test('transports: explicit types and aliases win; inference uses command, url and a /sse path', () => {
  const result = parseConfig(
    `{"mcpServers": {
      "a": {"type": "http", "url": "https://h/sse"},
      "b": {"url": "https://h/sse?x=1"},
      "c": {"url": "https://h/mcp"},
      "d": {"type": "streamableHttp", "url": "https://h/mcp"},
      "e": {"type": "streamable-http", "url": "https://h/mcp"},
      "f": {"type": "sse", "url": "https://h/events"},
      "g": {"command": "x", "url": "https://h/mcp"},
      "h": {"type": "websocket", "url": "wss://h/ws"},
      "i": {"type": "stdio", "url": "https://h/mcp"},
      "j": {"args": ["nothing to start"]}
    }}`,
    '.mcp.json',
  );
  assert.deepEqual(
    result.definitions.map((d) => [d.name, d.transport, d.transportInferred]),
    [
      ['a', 'http', false],
      ['b', 'sse', true],
      ['c', 'http', true],
      ['d', 'http', false],
      ['e', 'http', false],
      ['f', 'sse', false],
      ['g', 'stdio', true],
      ['h', 'http', true],
    ],
  );
  assert.deepEqual(
    result.problems.map((p) => p.message),
    [
      'server "h": unknown transport type "websocket"; inferred from the fields instead',
      'server "i": a stdio server needs a "command"; skipped',
      'server "j": has neither "command" nor "url"; skipped',
    ],
  );
  assert.ok(result.problems.every((p) => typeof p.line === 'number' && typeof p.column === 'number'));
});

test('underscore keys: comments are skipped, a real server under an underscore name is kept', () => {
  const result = parseConfig(
    '{"mcpServers": {"_comment": "see docs", "_notes": ["a"], "_alt": {"command": "docker", "_comment": "x"}, "main": {"command": "node"}}}',
    'claude_desktop_config.json',
  );
  assert.deepEqual(
    result.definitions.map((d) => d.name),
    ['_alt', 'main'],
  );
  assert.deepEqual(result.problems, []);
});

test('bad field types are reported and skipped, not thrown; numbers in args are taken as text', () => {
  const result = parseConfig(
    '{"mcpServers": {"a": {"command": "x", "args": ["--port", 8080, {"no": 1}], "env": {"A": 1, "B": null, "C": ["x"]}}, "b": "npx foo"}}',
    '.mcp.json',
  );
  const a = only(result);
  assert.deepEqual(a.args, ['--port', '8080']);
  assert.deepEqual(a.env, { A: '1' });
  assert.deepEqual(
    result.problems.map((p) => p.message),
    ['server "a": an entry of "args" is not a string; skipped', 'server "a": "env.C" is not a string; skipped', 'server "b": expected an object'],
  );
});

test('a server name given twice keeps the last definition and says so', () => {
  const result = parseConfig('{"servers": {"a": {"command": "one"}, "b": {"command": "b"}, "a": {"command": "two"}}}', '.vscode/mcp.json');
  assert.deepEqual(
    result.definitions.map((d) => [d.name, d.command]),
    [
      ['b', 'b'],
      ['a', 'two'],
    ],
  );
  assert.match(result.problems[0]?.message ?? '', /"a" is defined more than once/);
});

test('a Claude-style mcpServers map in .vscode/mcp.json is read, with a problem', () => {
  const result = parseConfig('{"mcpServers": {"a": {"command": "x"}}}', '.vscode/mcp.json');
  assert.equal(result.isConfig, true);
  assert.equal(only(result).name, 'a');
  assert.match(result.problems[0]?.message ?? '', /VS Code expects "servers"/);
});

test('disabled: Windsurf/Claude disabled: true and enabled: false', () => {
  const result = parseConfig(
    '{"mcpServers": {"a": {"command": "x", "disabled": true}, "b": {"serverUrl": "https://h/mcp", "enabled": false}, "c": {"command": "x", "disabled": false}}}',
    '.windsurf/mcp_config.json',
  );
  assert.deepEqual(
    result.definitions.map((d) => [d.name, d.disabled, d.url ?? null]),
    [
      ['a', true, null],
      ['b', true, 'https://h/mcp'],
      ['c', false, null],
    ],
  );
});

test('Zed: nested command object, flat command, remote url; extension servers skipped; location on the key', () => {
  const text = `{
    // Zed settings
    "theme": "One",
    "context_servers": {
      "old": {"command": {"path": "/usr/bin/node", "args": ["srv.js"], "env": {"K": "v"}}, "settings": {}},
      "flat": {"source": "custom", "command": "uvx", "args": ["mcp-server-git"], "enabled": false},
      "remote": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer {env:TOKEN}"}},
      "from-extension": {"source": "extension", "settings": {"key": "x"}},
      "settings-only": {"settings": {}}
    }
  }`;
  const result = parseConfig(text, '.zed/settings.json');
  assert.deepEqual(result.definitions.map(brief), [
    { name: 'old', transport: 'stdio', inferred: true, command: '/usr/bin/node', args: ['srv.js'], url: undefined, disabled: false },
    { name: 'flat', transport: 'stdio', inferred: true, command: 'uvx', args: ['mcp-server-git'], url: undefined, disabled: true },
    { name: 'remote', transport: 'http', inferred: true, command: undefined, args: [], url: 'https://h/mcp', disabled: false },
  ]);
  assert.deepEqual(result.definitions[0]?.env, { K: 'v' });
  assert.deepEqual(result.definitions[2]?.variables, [{ kind: 'env', name: 'TOKEN', raw: '{env:TOKEN}' }]);
  const loc = result.definitions[1]?.location;
  assert.equal(loc && text.slice(loc.offset, loc.offset + loc.length), '"flat"');
  assert.deepEqual(result.problems, []);
});

test('Continue: mcpServers is a list; types, request headers, hub references, missing names', () => {
  const text = [
    'name: Team MCP',
    'version: 0.0.1',
    'schema: v1',
    'mcpServers:',
    '  - name: Local',
    '    command: uvx',
    '    args: ["mcp-server-time"]',
    '    env: {TZ: UTC}',
    '  - name: Remote',
    '    type: sse',
    '    url: https://h.example/sse',
    '    requestOptions:',
    '      headers:',
    '        Authorization: Bearer ${{ secrets.TOKEN }}',
    '  - uses: someone/some-block',
    '  - command: node',
    '    type: streamable-http',
    '    url: http://localhost:3000/mcp',
    '',
  ].join('\n');
  const result = parseConfig(text, '.continue/mcpServers/team.yaml');
  assert.deepEqual(
    result.definitions.map((d) => [d.name, d.transport, d.transportInferred, d.command ?? d.url]),
    [
      ['Local', 'stdio', true, 'uvx'],
      ['Remote', 'sse', false, 'https://h.example/sse'],
      ['server 4', 'http', false, 'node'],
    ],
  );
  assert.deepEqual(result.definitions[0]?.env, { TZ: 'UTC' });
  assert.deepEqual(result.definitions[1]?.headers, { Authorization: 'Bearer ${{ secrets.TOKEN }}' });
  assert.deepEqual(result.definitions[1]?.variables, [{ kind: 'other', name: 'secrets.TOKEN', raw: '${{ secrets.TOKEN }}' }]);
  const loc = result.definitions[1]?.location;
  assert.equal(loc && text.slice(loc.offset, loc.offset + loc.length), 'Remote');
  assert.deepEqual(
    result.problems.map((p) => [p.message, p.line]),
    [['mcpServers entry 4 has no "name"', 16]],
  );

  const notBlock = parseConfig('name: x\nmodels: []\n', '.continue/mcpServers/models.yaml');
  assert.equal(notBlock.isConfig, false);
  assert.match(notBlock.problems[0]?.message ?? '', /expected an "mcpServers" list; found keys "name", "models"/);
});

test('Codex: url servers, enabled = false, bearer and env headers, nested tool tables are not servers', () => {
  const text = [
    'model = "o3"',
    '',
    '[mcp_servers.local]',
    'command = "npx"',
    'args = ["-y", "@upstash/context7-mcp"]',
    'env = { "API_KEY" = "x" }',
    '',
    '[mcp_servers.local.tools.search]',
    'approval_mode = "auto"',
    '',
    '[mcp_servers."remote.one"]',
    'url = "https://h.example/mcp"',
    'bearer_token_env_var = "REMOTE_TOKEN"',
    'env_http_headers = { "X-Org" = "ORG_ID" }',
    'http_headers = { "X-Static" = "1" }',
    'enabled = false',
    '',
  ].join('\n');
  const result = parseConfig(text, '.codex/config.toml');
  assert.deepEqual(result.problems, []);
  assert.deepEqual(result.definitions.map(brief), [
    { name: 'local', transport: 'stdio', inferred: true, command: 'npx', args: ['-y', '@upstash/context7-mcp'], url: undefined, disabled: false },
    { name: 'remote.one', transport: 'http', inferred: true, command: undefined, args: [], url: 'https://h.example/mcp', disabled: true },
  ]);
  assert.deepEqual(result.definitions[0]?.env, { API_KEY: 'x' });
  assert.deepEqual(result.definitions[1]?.headers, { 'X-Static': '1', 'X-Org': '${env:ORG_ID}', Authorization: 'Bearer ${env:REMOTE_TOKEN}' });
  assert.deepEqual(
    result.definitions[1]?.variables.map((v) => [v.kind, v.name]),
    [
      ['env', 'ORG_ID'],
      ['env', 'REMOTE_TOKEN'],
    ],
  );
  const loc = result.definitions[1]?.location;
  assert.equal(loc && text.slice(loc.offset, loc.offset + loc.length), '"remote.one"');
});

test('registry server.json: npm, pypi and oci packages with arguments and env; remotes with required headers', () => {
  const serverJson = {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json',
    name: 'io.example/weather',
    version: '1.2.0',
    packages: [
      {
        registryType: 'npm',
        identifier: '@example/weather-mcp',
        version: '1.2.0',
        transport: { type: 'stdio' },
        runtimeArguments: [{ type: 'named', name: '--node-options', value: '--max-old-space-size=512' }],
        packageArguments: [
          { type: 'positional', valueHint: 'region', isRequired: true, description: 'Region code' },
          { type: 'named', name: '--units', default: 'metric' },
          { type: 'named', name: '--verbose', format: 'boolean', value: 'false' },
          { type: 'named', name: '--cache-dir', description: 'optional, unset' },
        ],
        environmentVariables: [
          { name: 'WEATHER_API_KEY', isRequired: true, isSecret: true, description: 'API key' },
          { name: 'WEATHER_TIMEOUT', default: '30' },
          { name: 'WEATHER_OPTIONAL', description: 'left out' },
        ],
      },
      { registryType: 'pypi', identifier: 'weather-mcp', version: '1.2.0', transport: { type: 'stdio' } },
      {
        registryType: 'oci',
        identifier: 'docker.io/example/weather:1.2.0',
        transport: { type: 'stdio' },
        environmentVariables: [{ name: 'WEATHER_API_KEY', value: '{key}', variables: { key: { isSecret: true, description: 'API key' } } }],
      },
      { registryType: 'mcpb', identifier: 'https://example.com/weather.mcpb', transport: { type: 'stdio' } },
    ],
    remotes: [
      {
        type: 'streamable-http',
        url: 'https://{tenant}.weather.example/mcp',
        variables: { tenant: { description: 'Tenant', isRequired: true } },
        headers: [
          { name: 'X-Api-Key', isRequired: true, isSecret: true, description: 'key' },
          { name: 'X-Optional', description: 'optional', default: 'x' },
          { name: 'X-Fixed', value: 'yes' },
        ],
      },
    ],
  };
  const text = JSON.stringify(serverJson, null, 2);
  const result = parseConfig(text, 'server.json');
  assert.equal(result.isConfig, true);
  assert.deepEqual(
    result.definitions.map((d) => [d.name, d.transport, d.transportInferred, d.command ?? null, d.args, d.url ?? null]),
    [
      [
        'io.example/weather (npm)',
        'stdio',
        false,
        'npx',
        ['-y', '--node-options', '--max-old-space-size=512', '@example/weather-mcp@1.2.0', '${input:region}', '--units', 'metric'],
        null,
      ],
      ['io.example/weather (pypi)', 'stdio', false, 'uvx', ['weather-mcp==1.2.0'], null],
      ['io.example/weather (oci)', 'stdio', false, 'docker', ['run', '-i', '--rm', '-e', 'WEATHER_API_KEY', 'docker.io/example/weather:1.2.0'], null],
      ['io.example/weather (streamable-http)', 'http', false, null, [], 'https://${input:tenant}.weather.example/mcp'],
    ],
  );
  assert.deepEqual(result.definitions[0]?.env, { WEATHER_API_KEY: '${input:WEATHER_API_KEY}', WEATHER_TIMEOUT: '30' });
  assert.deepEqual(result.definitions[2]?.env, { WEATHER_API_KEY: '${input:key}' });
  assert.deepEqual(result.definitions[3]?.headers, { 'X-Api-Key': '${input:X-Api-Key}', 'X-Fixed': 'yes' });
  assert.deepEqual(
    result.inputs.map((i) => [i.id, i.password]),
    [
      ['region', false],
      ['WEATHER_API_KEY', true],
      ['key', true],
      ['tenant', false],
      ['X-Api-Key', true],
    ],
  );
  assert.deepEqual(
    result.problems.map((p) => p.message),
    ['package 4 (mcpb): registry type "mcpb" cannot be started from a command line; skipped'],
  );
  // Locations point at each package's identifier and each remote's url.
  const loc = result.definitions[1]?.location;
  assert.equal(loc && text.slice(loc.offset, loc.offset + loc.length), '"weather-mcp"');
});

test('registry: oci without runtime arguments gets docker run -i --rm; version is appended to an untagged image', () => {
  const result = parseConfig(
    JSON.stringify({
      name: 'x',
      packages: [{ registryType: 'oci', identifier: 'ghcr.io/o/img', version: '2.0', packageArguments: [{ type: 'positional', value: 'stdio' }] }],
    }),
    'server.json',
  );
  assert.deepEqual(
    [only(result).command, only(result).args, only(result).transportInferred],
    ['docker', ['run', '-i', '--rm', 'ghcr.io/o/img:2.0', 'stdio'], true],
  );
});

test('a server.json that is not a registry file is quietly not a config', () => {
  for (const text of ['{"port": 8080, "host": "localhost"}', '[1]', '"x"']) {
    const result = parseConfig(text, 'config/server.json');
    assert.deepEqual([result.isConfig, result.problems], [false, []], text);
  }
  const broken = parseConfig('{"packages": [', 'server.json');
  assert.match(broken.problems[0]?.message ?? '', /invalid JSON/);
});

test('parseConfig: unknown .json paths try the generic mcpServers shape; other unknown paths are not configs', () => {
  const generic = parseConfig('{"mcpServers": {"a": {"serverUrl": "https://h/mcp"}, "b": {"httpUrl": "https://h/x"}}}', 'tools/mcp.json');
  assert.deepEqual(
    generic.definitions.map((d) => [d.format, d.name, d.transport]),
    [
      ['mcp-servers-json', 'a', 'http'],
      ['mcp-servers-json', 'b', 'http'],
    ],
  );
  const notMcp = parseConfig('{"name": "x"}', 'random.json');
  assert.equal(notMcp.isConfig, false);
  assert.match(notMcp.problems[0]?.message ?? '', /"mcpServers"/);
  const unknown = parseConfig('whatever', 'notes.txt');
  assert.equal(unknown.isConfig, false);
  assert.match(unknown.problems[0]?.message ?? '', /not an MCP config/);
  // An explicit format overrides the path.
  assert.equal(parseConfig('{"servers": {"a": {"command": "x"}}}', 'anything.json', 'vscode-mcp-json').definitions.length, 1);
});

test('a byte-order mark does not shift locations', () => {
  const text = '\ufeff{"mcpServers": {"a": {"command": "x"}}}';
  const def = only(parseConfig(text, '.mcp.json'));
  const body = text.slice(1);
  assert.equal(body.slice(def.location?.offset, (def.location?.offset ?? 0) + (def.location?.length ?? 0)), '"a"');
});
