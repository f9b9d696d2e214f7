/**
 * The config fixture README's table is the acceptance spec for the parsers: every fixture file,
 * laid under its real path, must give the server count, transports, variable syntaxes, disabled
 * count and isConfig the table states. The table is read by its header so a changed column fails
 * loudly instead of shifting.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { formatForPath, parseConfig } from '../../../../src/core/spec/configs';
import type { ConfigFormat, ServerDefinition, VariableRef } from '../../../../src/core/spec/configs/types';
import { configsDir } from '../../fixturePaths';

interface Row {
  /** Fixture file, relative to the configs folder. */
  file: string;
  /** The file's path in its source repository (where detection would find it). */
  realPath: string;
  servers: number;
  disabled: number;
  isConfig: boolean;
  /** Sorted multiset, e.g. `["http", "stdio(inferred)", "stdio(inferred)"]`. */
  transports: string[];
  /** Variable syntax → occurrences, e.g. `{"${VAR} (bare)": 7}`. */
  variables: Record<string, number>;
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());
const unquote = (s: string): string => s.replace(/^`|`$/g, '');

/** Expands `a×3, b` into `[a, a, a, b]`; `-` is empty. */
function multiset(cell: string): string[] {
  if (cell === '-' || cell === '') return [];
  return cell.split(',').flatMap((item) => {
    const m = /^(.*?)(?:×(\d+))?$/.exec(item.trim());
    return Array<string>(Number(m?.[2] ?? 1)).fill(m?.[1]?.trim() ?? '');
  });
}

/** `remote:streamable-http` → `http`; `http(serverUrl)` → `http(inferred)` (no type given); `oci:stdio` → `stdio`. */
function normaliseTransport(t: string): string {
  const m = /^(?:[a-z]+:)?([a-z-]+)(?:\((\w+)\))?$/.exec(t);
  assert.ok(m, `README transport "${t}" is understood`);
  const name = m[1] === 'streamable-http' ? 'http' : (m[1] ?? '');
  return m[2] ? `${name}(inferred)` : name;
}

function readTable(): Row[] {
  const lines = readFileSync(join(configsDir, 'README.md'), 'utf8').split('\n');
  const headerAt = lines.findIndex((l) => l.startsWith('| # | File | Format |'));
  assert.ok(headerAt >= 0, 'README has the configuration table');
  const header = cells(lines[headerAt] ?? '');
  const col = (name: string): number => {
    const i = header.indexOf(name);
    assert.ok(i >= 0, `README table has a "${name}" column`);
    return i;
  };
  const c = {
    file: col('File'),
    source: col('Source (repo / path @ commit)'),
    servers: col('Servers'),
    transports: col('Transports'),
    variables: col('Variables'),
  };
  const rows: Row[] = [];
  for (const line of lines.slice(headerAt + 2)) {
    if (!line.startsWith('|')) break;
    const r = cells(line);
    const at = (i: number): string => r[i] ?? '';
    const source = /`[^`]+` \/ `([^`]+)` @/.exec(at(c.source));
    assert.ok(source?.[1], `row ${at(0)} names the source path`);
    const serversCell = at(c.servers);
    const registry = /(\d+) package\(s\) \+ (\d+) remote\(s\)/.exec(serversCell);
    const variables: Record<string, number> = {};
    for (const v of multiset(at(c.variables))) variables[v] = (variables[v] ?? 0) + 1;
    rows.push({
      file: unquote(at(c.file)),
      realPath: source[1],
      servers: registry ? Number(registry[1]) + Number(registry[2]) : Number(/^\d+/.exec(serversCell)?.[0]),
      disabled: Number(/(\d+) disabled/.exec(serversCell)?.[1] ?? 0),
      isConfig: !serversCell.includes('no server map'),
      transports: multiset(at(c.transports)).map(normaliseTransport).sort(),
      variables,
    });
  }
  return rows;
}

/** The README's name for a reference's syntax (its Variables column). */
function variableSyntax(v: VariableRef): string {
  if (v.kind === 'workspaceFolder') return '${workspaceFolder}';
  if (v.kind === 'input') return '${input:..}';
  if (v.raw.startsWith('${env:')) return '${env:..}';
  if (v.raw.startsWith('{env:')) return '{env:..}';
  if (v.defaultValue !== undefined) return '${VAR:-default}';
  if (v.kind === 'env') return '${VAR} (bare)';
  return `other:${v.raw}`;
}

function summarise(defs: ServerDefinition[]): Pick<Row, 'servers' | 'disabled' | 'transports' | 'variables'> {
  const variables: Record<string, number> = {};
  for (const v of defs.flatMap((d) => d.variables)) variables[variableSyntax(v)] = (variables[variableSyntax(v)] ?? 0) + 1;
  return {
    servers: defs.length,
    disabled: defs.filter((d) => d.disabled).length,
    transports: defs.map((d) => (d.transportInferred ? `${d.transport}(inferred)` : d.transport)).sort(),
    variables,
  };
}

/**
 * Where the parser deliberately differs from the README, with the README's value (so a README
 * fix makes this test fail and the entry gets revisited) and ours.
 */
const DEVIATIONS: Record<string, { readme: Partial<Row>; ours: Partial<Row>; why: string }> = {
  'mcp-registry-server-json/github__github-mcp-server__server.json': {
    readme: { variables: { '${VAR} (bare)': 2 } },
    ours: { variables: { '${VAR} (bare)': 1, '${input:..}': 1 } },
    why:
      'The README counts ${VERSION} in the top-level "version" field too, which is metadata, not part of the ' +
      'command line (the OCI identifier already carries the tag). The registry placeholder {token} becomes ' +
      '${input:token} so an unanswered secret is reported instead of reaching docker literally.',
  },
};

/** Fixture folder → the format its files are. */
const FOLDER_FORMAT: Record<string, ConfigFormat> = {
  'vscode-mcp-json': 'vscode-mcp-json',
  'vscode-settings-json': 'vscode-settings',
  'claude-code-mcp-json': 'claude-code',
  'cursor-mcp-json': 'cursor',
  'claude-desktop': 'claude-desktop',
  windsurf: 'windsurf',
  'gemini-cli': 'gemini-cli',
  'codex-toml': 'codex-toml',
  'continue-yaml': 'continue-yaml',
  'mcp-registry-server-json': 'mcp-registry',
};

const rows = readTable();
const fixtureFiles = readdirSync(configsDir)
  .filter((d) => d !== 'sources' && statSync(join(configsDir, d)).isDirectory())
  .flatMap((d) => readdirSync(join(configsDir, d)).map((f) => `${d}/${f}`))
  .sort();

test('the README table covers every config fixture and only existing ones', () => {
  assert.equal(rows.length, 18);
  assert.deepEqual(rows.map((r) => r.file).sort(), fixtureFiles);
});

for (const row of rows) {
  test(`${row.file} parses as the README states`, () => {
    const format = formatForPath(row.realPath);
    assert.ok(format, `${row.realPath} is a recognised config path`);
    assert.equal(format, FOLDER_FORMAT[row.file.split('/')[0] ?? '']);
    const text = readFileSync(join(configsDir, row.file), 'utf8');
    const result = parseConfig(text, row.realPath);
    assert.equal(result.isConfig, row.isConfig, 'isConfig');
    if (row.isConfig) assert.deepEqual(result.problems, [], 'no problems in a valid config');
    else assert.match(result.problems[0]?.message ?? '', /not an MCP config/);

    const deviation = DEVIATIONS[row.file];
    const expected: Partial<Row> = { servers: row.servers, disabled: row.disabled, transports: row.transports, variables: row.variables };
    if (deviation) {
      for (const [k, v] of Object.entries(deviation.readme)) assert.deepEqual(row[k as keyof Row], v, `README still says ${k} as recorded`);
      Object.assign(expected, deviation.ours);
    }
    assert.deepEqual(summarise(result.definitions), expected);

    for (const def of result.definitions) {
      assert.equal(def.file, row.realPath);
      assert.equal(def.format, format);
      if (def.transport === 'stdio') assert.ok(def.command, `${def.name} has a command`);
      else assert.match(def.url ?? '', /^https?:\/\//, `${def.name} has a URL`);
      // The location points at the server's name in the file (JSON key, TOML header, YAML name).
      assert.ok(def.location, `${def.name} has a location`);
      const at = text.slice(def.location.offset, def.location.offset + def.location.length);
      if (format !== 'mcp-registry') assert.ok(at === def.name || at === JSON.stringify(def.name), `location of ${def.name} is "${at}"`);
    }
  });
}

test('fixture specifics the table implies', () => {
  const parse = (file: string, real: string) => parseConfig(readFileSync(join(configsDir, file), 'utf8'), real);

  const copilot = parse('vscode-mcp-json/microsoft__vscode-copilot-chat__.vscode_mcp.json', '.vscode/mcp.json');
  assert.deepEqual(copilot.definitions[0]?.args, ['run', 'start-stdio', '--', '--extensionDevelopmentPath=${workspaceFolder}']);
  assert.equal(copilot.definitions[0]?.cwd, '${workspaceFolder}/../vscode/test/mcp');

  // type "http" wins over a URL path ending in /sse.
  const ha = parse('vscode-mcp-json/0GiS0__home-assistant-mcp__.vscode_mcp.json', '.vscode/mcp.json');
  assert.equal(ha.definitions[0]?.transport, 'http');
  assert.equal(ha.definitions[0]?.transportInferred, false);
  assert.deepEqual(ha.definitions[0]?.headers, { Authorization: 'Bearer ${input:home-assistant-token}' });
  assert.deepEqual(
    ha.inputs.map((i) => [i.id, i.password ?? false]),
    [
      ['home-assistant-domain', false],
      ['home-assistant-token', true],
    ],
  );

  const kali = parse('claude-desktop/Alzarak__Kali-Linux-MCP__claude_desktop_config.json', 'claude_desktop_config.json');
  assert.deepEqual(
    kali.definitions.map((d) => d.name),
    ['_option1_docker_gateway', 'kali-security'],
  );

  const windsurf = parse('windsurf/Chisanan232__ai-development-config__.windsurf_mcp_config.json', '.windsurf/mcp_config.json');
  assert.deepEqual(
    windsurf.definitions.filter((d) => d.disabled).map((d) => d.name),
    ['jira', 'clickup', 'codecov', 'datadog', 'sentry', 'confluence'],
  );
  assert.equal(windsurf.definitions.find((d) => d.name === 'clickup')?.url, 'http://localhost:8101/mcp/mcp');

  const codex = parse('codex-toml/0gnm0-afk__fng-chatbot-mcp-deepseek__.codex_config.toml', '.codex/config.toml');
  assert.deepEqual(
    codex.definitions.map((d) => [d.name, d.command, d.args, d.cwd]),
    [['fng_chatbot', '../.venv/Scripts/python.exe', ['-m', 'fng_chatbot.mcp_server'], '..']],
  );

  const cont = parse('continue-yaml/CeeEffEff__mcp-examples__.continue_mcpServers_memory-mcp-server-codebase.yaml', '.continue/mcpServers/memory.yaml');
  assert.equal(cont.definitions[0]?.name, 'Codebase Memory');
  assert.deepEqual(Object.keys(cont.definitions[0]?.env ?? {}), ['MEMORY_FILE_PATH']);

  const github = parse('mcp-registry-server-json/github__github-mcp-server__server.json', 'server.json');
  assert.deepEqual(github.definitions[0]?.args, [
    'run',
    '-i',
    '--rm',
    '-e',
    'GITHUB_PERSONAL_ACCESS_TOKEN=${input:token}',
    'ghcr.io/github/github-mcp-server:${VERSION}',
  ]);
  assert.deepEqual(github.inputs, [{ id: 'token', type: 'promptString', password: true }]);

  const neon = parse('mcp-registry-server-json/neondatabase__mcp-server-neon__server.json', 'server.json');
  assert.deepEqual(
    neon.definitions.map((d) => [d.name, d.transport, d.url, d.headers]),
    [
      ['com.neon/mcp (streamable-http)', 'http', 'https://mcp.neon.tech/mcp', {}],
      ['com.neon/mcp (sse)', 'sse', 'https://mcp.neon.tech/sse', {}],
    ],
  );
});

test('no fixture throws when cut short at any of 40 points, and each cut gives a result', () => {
  for (const row of rows) {
    const text = readFileSync(join(configsDir, row.file), 'utf8');
    for (let i = 0; i <= 40; i++) {
      const cut = text.slice(0, Math.floor((text.length * i) / 40));
      const result = parseConfig(cut, row.realPath);
      assert.ok(Array.isArray(result.definitions) && Array.isArray(result.problems), `${row.file} cut at ${i}/40`);
      assert.ok(result.definitions.length <= row.servers, `${row.file} cut at ${i}/40 finds no extra servers`);
    }
  }
});
