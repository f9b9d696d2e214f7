/**
 * Snapshot files: stable bytes, documented key order, a loss-free round trip through
 * `loadSpecText`, safe file names, and atomic writes.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Tool } from '../../../../src/core/spec/model';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { snapshotFileName, snapshotJson, writeSnapshot, type SnapshotSource } from '../../../../src/core/spec/snapshotWriter';
import { fixtureTools } from '../../../fixtures/servers/fixtureServer';

const CAPTURED = '2026-01-02T03:04:05.000Z';

/** A tool whose keys come in a scrambled order, with nested schemas, $defs and extras. */
const messyTool = {
  _meta: { 'z.key': 1, 'a.key': 2 },
  annotations: { readOnlyHint: false, destructiveHint: true, title: 'Merge' },
  inputSchema: {
    required: ['ref', 'base'],
    properties: {
      ref: { type: 'string', description: 'Branch to merge.' },
      base: { description: 'Target branch.', type: 'string', enum: ['main', 'develop', 'release'] },
      options: {
        type: 'object',
        properties: { squash: { type: 'boolean' }, message: { type: 'string' } },
        additionalProperties: false,
      },
      reviewers: { items: { $ref: '#/$defs/user' }, type: 'array' },
    },
    type: 'object',
    $defs: { user: { type: 'object', properties: { login: { type: 'string' }, id: { type: 'integer' } } }, team: { type: 'string' } },
    anyOf: [{ required: ['ref'] }, { required: ['base'] }],
  },
  description: 'Merges a branch.',
  name: 'merge_branch',
  icons: [{ src: 'b.png' }, { src: 'a.png' }],
  title: 'Merge branch',
};

function listing(tools: unknown[], extra: Partial<SnapshotSource> = {}): SnapshotSource {
  const parsed = tools.map((t) => Tool.parse(t));
  return {
    serverName: 'github',
    serverInfo: { version: '2.0.0', name: 'github-mcp', websiteUrl: 'https://example.com', title: 'GitHub' },
    capabilities: { tools: { listChanged: true }, logging: {}, completions: {} },
    pages: 2,
    spec: { tools: parsed, invalidTools: [] },
    ...extra,
  };
}

/** A deep copy with every object's keys reversed, except `properties` maps (whose order is kept by design). */
function reversedKeys(value: unknown, keepOrder = false): unknown {
  if (Array.isArray(value)) return value.map((v) => reversedKeys(v));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  const out: Record<string, unknown> = {};
  for (const [key, v] of keepOrder ? entries : entries.reverse()) out[key] = reversedKeys(v, key === 'properties');
  return out;
}

describe('snapshotJson', () => {
  it('orders the top level, the server, tools and tool keys as documented', () => {
    const text = snapshotJson(listing([...fixtureTools, messyTool]), { provenance: '.vscode/mcp.json#github', capturedAt: CAPTURED });
    assert.ok(text.endsWith('}\n') && !text.endsWith('\n\n'), 'one trailing newline');
    assert.ok(text.startsWith('{\n  "server": {\n    "name": "github-mcp",'), '2-space indent, server first');
    const snap = JSON.parse(text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(snap), ['server', 'provenance', 'capturedAt', 'pages', 'capabilities', 'tools']);
    assert.deepEqual(Object.keys(snap.server as object), ['name', 'version', 'title', 'websiteUrl']);
    assert.deepEqual(Object.keys(snap.capabilities as object), ['completions', 'logging', 'tools']);
    assert.equal(snap.capturedAt, CAPTURED);
    assert.equal(snap.pages, 2);
    const tools = snap.tools as Record<string, unknown>[];
    assert.deepEqual(
      tools.map((t) => t.name),
      ['add', 'create_issue', 'delete_issue', 'echo', 'get_weather', 'merge_branch', 'ping', 'search_issues'],
    );
    const merge = tools.find((t) => t.name === 'merge_branch') as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(merge), ['name', 'title', 'description', 'inputSchema', 'annotations', '_meta', 'icons']);
    assert.deepEqual(Object.keys(merge.annotations ?? {}), ['destructiveHint', 'readOnlyHint', 'title']);
    assert.deepEqual(Object.keys(merge._meta ?? {}), ['a.key', 'z.key']);
  });

  it('sorts schema keywords but keeps parameter order, and never reorders arrays', () => {
    const snap = JSON.parse(snapshotJson(listing([messyTool]), { capturedAt: CAPTURED })) as { tools: Record<string, any>[] }; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary JSON Schema
    const schema = snap.tools[0]?.inputSchema;
    assert.deepEqual(Object.keys(schema), ['$defs', 'anyOf', 'properties', 'required', 'type']);
    assert.deepEqual(Object.keys(schema.properties), ['ref', 'base', 'options', 'reviewers'], 'parameter order as the server sent it');
    assert.deepEqual(Object.keys(schema.properties.base), ['description', 'enum', 'type'], 'keywords inside a parameter sorted');
    assert.deepEqual(Object.keys(schema.properties.options.properties), ['squash', 'message'], 'nested properties keep order');
    assert.deepEqual(Object.keys(schema.properties.options), ['additionalProperties', 'properties', 'type']);
    assert.deepEqual(Object.keys(schema.properties.reviewers), ['items', 'type']);
    assert.deepEqual(Object.keys(schema.$defs), ['team', 'user'], '$defs names sorted');
    assert.deepEqual(Object.keys(schema.$defs.user.properties), ['login', 'id'], 'properties inside $defs keep order');
    assert.deepEqual(schema.required, ['ref', 'base']);
    assert.deepEqual(schema.properties.base.enum, ['main', 'develop', 'release']);
    assert.deepEqual(schema.anyOf, [{ required: ['ref'] }, { required: ['base'] }]);
    assert.deepEqual(snap.tools[0]?.icons, [{ src: 'b.png' }, { src: 'a.png' }]);
  });

  it('gives the same bytes for the same listing, whatever the key and tool order', () => {
    const base = snapshotJson(listing([...fixtureTools, messyTool]), { capturedAt: CAPTURED });
    assert.equal(snapshotJson(listing([...fixtureTools, messyTool]), { capturedAt: CAPTURED }), base);
    const shuffled = [...fixtureTools, messyTool].reverse().map((t) => reversedKeys(t));
    const source = listing(shuffled, {
      serverInfo: reversedKeys(listing([]).serverInfo) as SnapshotSource['serverInfo'],
      capabilities: reversedKeys(listing([]).capabilities) as Record<string, unknown>,
    });
    assert.equal(snapshotJson(source, { capturedAt: CAPTURED }), base);
    const later = snapshotJson(listing([...fixtureTools, messyTool]), { capturedAt: '2027-01-01T00:00:00.000Z' });
    const differing = base.split('\n').filter((line, i) => line !== later.split('\n')[i]);
    assert.deepEqual(differing, [`  "capturedAt": "${CAPTURED}",`], 'only capturedAt changes');
  });

  it('orders duplicate tool names by content, so they are stable too', () => {
    const a = { name: 'dup', description: 'A', inputSchema: { type: 'object' } };
    const b = { name: 'dup', description: 'B', inputSchema: { type: 'object' } };
    assert.equal(snapshotJson(listing([a, b]), { capturedAt: CAPTURED }), snapshotJson(listing([b, a]), { capturedAt: CAPTURED }));
  });

  it('records entries that were not tools, and omits provenance when not given', () => {
    const source = listing([fixtureTools[0]], {
      spec: { tools: [Tool.parse(fixtureTools[0])], invalidTools: [{ index: 1, message: 'name: expected string' }] },
    });
    const snap = JSON.parse(snapshotJson(source, { capturedAt: CAPTURED })) as Record<string, unknown>;
    assert.deepEqual(Object.keys(snap), ['server', 'capturedAt', 'pages', 'capabilities', 'invalidTools', 'tools']);
    assert.deepEqual(snap.invalidTools, [{ index: 1, message: 'name: expected string' }]);
  });

  it('falls back to the listing time for capturedAt', () => {
    const source = listing([], { spec: { tools: [], invalidTools: [], capturedAt: CAPTURED } });
    assert.equal((JSON.parse(snapshotJson(source)) as { capturedAt: string }).capturedAt, CAPTURED);
  });
});

describe('snapshotFileName', () => {
  const cases: [string, string][] = [
    ['github', 'github.json'],
    ['GitHub Enterprise', 'github-enterprise.json'],
    ['../../x', 'x.json'],
    ['..', 'server.json'],
    ['', 'server.json'],
    ['a/b\\c', 'a-b-c.json'],
    ['nul\u0000byte', 'nul-byte.json'],
    ['what: *is* <this>? |"x"|', 'what-is-this-x.json'],
    ['CON', '_con.json'],
    ['aux.local', '_aux.local.json'],
    ['lpt1', '_lpt1.json'],
    ['console', 'console.json'],
    ['.hidden', 'hidden.json'],
    ['trailing...', 'trailing.json'],
    ['-rf', 'rf.json'],
    ['サーバー', 'サーバー.json'],
    ['ｆｕｌｌ／ｗｉｄｔｈ', 'full-width.json'],
    ['@scope/server-git', 'scope-server-git.json'],
  ];
  for (const [name, expected] of cases) {
    it(`${JSON.stringify(name)} → ${expected}`, () => assert.equal(snapshotFileName(name), expected));
  }

  it('caps long names', () => {
    const file = snapshotFileName('x'.repeat(500));
    assert.equal(file, `${'x'.repeat(100)}.json`);
  });
});

describe('writeSnapshot', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-snap-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes a file that loads back to the same tools and server', async () => {
    const folder = join(root, 'roundtrip', 'nested');
    const source = listing([...fixtureTools, messyTool]);
    const file = await writeSnapshot(source, folder, { provenance: 'mcp.json#github', capturedAt: CAPTURED });
    assert.equal(file, join(folder, 'github.json'));
    const loaded = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(loaded.ok, loaded.ok ? '' : loaded.problem.message);
    const byName = (a: Tool, b: Tool) => (a.name < b.name ? -1 : 1);
    assert.deepEqual(loaded.spec.tools, [...source.spec.tools].sort(byName));
    assert.deepEqual(loaded.spec.server, source.serverInfo);
    assert.equal(loaded.spec.capturedAt, CAPTURED);
    assert.deepEqual(loaded.spec.invalidTools, []);
  });

  it('uses the name option for the file, and rewrites byte-identically', async () => {
    const folder = join(root, 'named');
    const first = await writeSnapshot(listing(fixtureTools), folder, { name: 'My Server', capturedAt: CAPTURED });
    assert.equal(first, join(folder, 'my-server.json'));
    const bytes = await readFile(first);
    const second = await writeSnapshot(listing([...fixtureTools].reverse()), folder, { name: 'My Server', capturedAt: CAPTURED });
    assert.equal(second, first);
    assert.deepEqual(await readFile(second), bytes);
    assert.deepEqual(await readdir(folder), ['my-server.json'], 'no temp files left');
  });

  it('replaces an older snapshot atomically, leaving no temp files', async () => {
    const folder = join(root, 'replace');
    await mkdir(folder);
    await writeFile(join(folder, 'github.json'), '{"tools":[]}\n');
    const file = await writeSnapshot(listing(fixtureTools), folder, { capturedAt: CAPTURED });
    const loaded = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(loaded.ok);
    assert.equal(loaded.spec.tools.length, fixtureTools.length);
    assert.deepEqual(await readdir(folder), ['github.json']);
  });

  it('keeps path traversal attempts inside the folder', async () => {
    const folder = join(root, 'jail', 'snapshots');
    await mkdir(folder, { recursive: true });
    const names = ['../../escape', '../outside', '/etc/passwd', '..\\..\\win', 'a/../../b', '\u0000', 'C:\\temp\\x', '~/.ssh/id'];
    for (const name of names) {
      const file = await writeSnapshot(listing(fixtureTools), folder, { name, capturedAt: CAPTURED });
      assert.equal(dirname(file), folder, `${JSON.stringify(name)} → ${file}`);
    }
    assert.deepEqual(await readdir(join(root, 'jail')), ['snapshots'], 'nothing written beside the folder');
    const written = await readdir(folder);
    assert.ok(
      written.every((f) => f.endsWith('.json') && !f.startsWith('.')),
      written.join(', '),
    );
    assert.equal(written.length, new Set(names.map(snapshotFileName)).size);
  });

  it('cleans up its temp file when the rename fails', async () => {
    const folder = join(root, 'blocked');
    // A non-empty directory where the file should go makes the final rename fail.
    await mkdir(join(folder, 'github.json', 'inside'), { recursive: true });
    await assert.rejects(writeSnapshot(listing(fixtureTools), folder, { capturedAt: CAPTURED }), /EISDIR|EPERM|ENOTEMPTY|EEXIST/);
    assert.deepEqual(await readdir(folder), ['github.json'], 'no temp file left behind');
  });
});
