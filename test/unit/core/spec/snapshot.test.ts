/** The snapshot loader on the real fixture corpus and on the shapes and breakages found in the wild. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lineColumn, lineColumnIndex, parseJsonText } from '../../../../src/core/spec/jsonText';
import type { SourceRange, Spec } from '../../../../src/core/spec/model';
import { isSpecShaped, loadSpecText, type SpecLoad } from '../../../../src/core/spec/snapshot';
import { specsDir } from '../../fixturePaths';

const specFiles = readdirSync(specsDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const read = (file: string): string => readFileSync(join(specsDir, file), 'utf8');
const slice = (text: string, r: SourceRange | undefined): string | undefined => (r === undefined ? undefined : text.slice(r.offset, r.offset + r.length));

function loaded(load: SpecLoad): Spec {
  assert.ok(load.ok, load.ok ? '' : `expected a spec, got: ${load.problem.message}`);
  return load.spec;
}

test('the fixture corpus has its 32 spec files', () => {
  assert.equal(specFiles.length, 32);
});

for (const file of specFiles) {
  test(`loads ${file}: every tool, server info, and locations that point at names and parameter keys`, () => {
    const text = read(file);
    const raw = JSON.parse(text) as { server: { name: string; version?: string }; tools: { name: string; inputSchema?: { properties?: object } }[] };
    const spec = loaded(loadSpecText(text, file));
    assert.equal(spec.source, file);
    assert.equal(spec.name, raw.server.name);
    assert.deepEqual(spec.server, raw.server);
    assert.deepEqual(spec.invalidTools, []);
    assert.deepEqual(
      spec.tools.map((t) => t.name),
      raw.tools.map((t) => t.name),
    );
    assert.equal(spec.locations?.length, raw.tools.length);
    spec.tools.forEach((tool, i) => {
      const loc = spec.locations?.[i];
      assert.ok(loc, `${tool.name} has a location`);
      assert.equal(slice(text, loc.name), JSON.stringify(tool.name));
      // The tool range is the whole object: parsing it gives back the tool.
      assert.deepEqual(JSON.parse(slice(text, loc.tool) ?? 'null'), raw.tools[i]);
      const keys = Object.keys(raw.tools[i]?.inputSchema?.properties ?? {});
      assert.deepEqual(Object.keys(loc.params), keys);
      for (const key of keys) assert.equal(slice(text, loc.params[key]), JSON.stringify(key), `${tool.name}.${key}`);
    });
  });
}

const toolA = { name: 'get_weather', description: 'Weather for a city', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } };
const toolB = { name: 'get_time', description: 'Time in a zone', inputSchema: { type: 'object', properties: { zone: { type: 'string' } } } };

const shapes: { name: string; value: unknown; serverName?: string }[] = [
  { name: '{tools}', value: { tools: [toolA, toolB] } },
  { name: '{server, tools}', value: { server: { name: 'weather', version: '1.0.0' }, tools: [toolA, toolB] }, serverName: 'weather' },
  { name: 'bare array', value: [toolA, toolB] },
  { name: 'JSON-RPC response', value: { jsonrpc: '2.0', id: 1, result: { tools: [toolA, toolB], nextCursor: null } } },
  {
    name: 'JSON-RPC response with serverInfo beside it',
    value: { jsonrpc: '2.0', id: 2, serverInfo: { name: 'wx' }, result: { tools: [toolA, toolB] } },
    serverName: 'wx',
  },
];

for (const shape of shapes) {
  test(`accepts the ${shape.name} shape`, () => {
    const text = JSON.stringify(shape.value, null, 2);
    const spec = loaded(loadSpecText(text, '/tmp/snaps/weather-tools.json'));
    assert.deepEqual(
      spec.tools.map((t) => t.name),
      ['get_weather', 'get_time'],
    );
    // Without server info the name comes from the file.
    assert.equal(spec.name, shape.serverName ?? 'weather-tools');
    assert.equal(slice(text, spec.locations?.[1]?.name), '"get_time"');
    assert.equal(slice(text, spec.locations?.[0]?.params.city), '"city"');
    assert.ok(isSpecShaped(shape.value));
  });
}

test('a tool entry without a name is skipped and reported while the others load', () => {
  for (const wrap of [(tools: unknown[]) => ({ tools }), (tools: unknown[]) => tools, (tools: unknown[]) => ({ jsonrpc: '2.0', id: 1, result: { tools } })]) {
    const text = JSON.stringify(wrap([toolA, { description: 'nameless', inputSchema: { type: 'object' } }, toolB]), null, 2);
    const spec = loaded(loadSpecText(text, 'x.json'));
    assert.deepEqual(
      spec.tools.map((t) => t.name),
      ['get_weather', 'get_time'],
    );
    assert.equal(spec.invalidTools.length, 1);
    const bad = spec.invalidTools[0];
    assert.equal(bad?.index, 1);
    assert.match(bad?.message ?? '', /^name: /);
    assert.deepEqual(JSON.parse(slice(text, bad?.location) ?? 'null'), { description: 'nameless', inputSchema: { type: 'object' } });
    // Locations stay parallel to the tools that loaded, not to the raw entries.
    assert.equal(slice(text, spec.locations?.[1]?.name), '"get_time"');
  }
});

test('entries that are not tools in other ways are reported with the field at fault', () => {
  const text = JSON.stringify({ tools: [toolA, { name: '' }, { name: 'x', annotations: { readOnlyHint: 'yes' } }, { name: 42 }] });
  const spec = loaded(loadSpecText(text, 'x.json'));
  assert.deepEqual(
    spec.tools.map((t) => t.name),
    ['get_weather'],
  );
  assert.deepEqual(
    spec.invalidTools.map((t) => [t.index, t.message.split(':')[0]]),
    [
      [1, 'name'],
      [2, 'annotations.readOnlyHint'],
      [3, 'name'],
    ],
  );
});

test('truncated JSON is a problem with the line and column where it ends', () => {
  const full = read('filesystem.json');
  const text = full.slice(0, 5000);
  const load = loadSpecText(text, 'filesystem.json');
  assert.equal(load.ok, false);
  if (load.ok) return;
  assert.notEqual(load.notSpec, true);
  assert.equal(load.problem.file, 'filesystem.json');
  assert.match(load.problem.message, /^invalid JSON: /);
  const lines = text.split('\n');
  assert.equal(load.problem.line, lines.length);
  assert.equal(load.problem.column, (lines[lines.length - 1]?.length ?? 0) + 1);
});

test('a syntax error mid-file is placed on its line and column', () => {
  const text = '{\n  "tools": [\n    {"name": "a",, "description": "x"}\n  ]\n}\n';
  const load = loadSpecText(text, 'bad.json');
  assert.ok(!load.ok);
  assert.deepEqual([load.problem.line, load.problem.column], [3, 18]);
  assert.equal(text.split('\n')[2]?.[17], ',');
});

test('a binary file is a one-line problem, not a throw', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
  const load = loadSpecText(png.toString('utf8'), 'logo.json');
  assert.ok(!load.ok);
  assert.equal(load.problem.message, 'binary file, not JSON');
  assert.equal(load.notSpec, undefined);
});

test('empty text is a problem', () => {
  const load = loadSpecText('', 'empty.json');
  assert.ok(!load.ok);
  assert.match(load.problem.message, /invalid JSON/);
});

for (const [name, text] of [
  ['package.json', JSON.stringify({ name: 'x', version: '1.0.0', dependencies: {} })],
  ['a tools key that is not a list', '{"tools": "none"}'],
  ['a tools list of strings', '{"tools": ["read", "write"]}'],
  ['OpenAI-style function tools', JSON.stringify({ tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] })],
  ['an array of numbers', '[1, 2, 3]'],
  ['an empty array', '[]'],
  ['an array of named things that are not tools', '[{"name": "alice"}, {"name": "bob"}]'],
  ['a number', '42'],
] as const) {
  test(`JSON that is not a spec is reported as notSpec: ${name}`, () => {
    const load = loadSpecText(text, 'other.json');
    assert.ok(!load.ok);
    assert.equal(load.notSpec, true);
    assert.match(load.problem.message, /^not a tool spec/);
  });
}

test('a snapshot with no tools is a spec with no tools', () => {
  const spec = loaded(loadSpecText('{"server": {"name": "empty"}, "tools": []}', 'e.json'));
  assert.equal(spec.name, 'empty');
  assert.deepEqual(spec.tools, []);
});

test('a byte-order mark does not shift locations', () => {
  const body = JSON.stringify({ tools: [toolA] }, null, 2);
  const text = `\uFEFF${body}`;
  const spec = loaded(loadSpecText(text, 'bom.json'));
  assert.equal(slice(text, spec.locations?.[0]?.name), '"get_weather"');
  assert.equal(slice(text, spec.locations?.[0]?.params.city), '"city"');
  const parsed = parseJsonText(text, 'bom.json', { strict: true });
  assert.ok(parsed.ok);
});

test('capturedAt and unknown tool fields are kept', () => {
  const text = JSON.stringify({ capturedAt: '2026-01-02T03:04:05Z', tools: [{ ...toolA, icons: [{ src: 'x.png' }], _meta: { a: 1 } }] });
  const spec = loaded(loadSpecText(text, 'c.json'));
  assert.equal(spec.capturedAt, '2026-01-02T03:04:05Z');
  assert.deepEqual((spec.tools[0] as Record<string, unknown>).icons, [{ src: 'x.png' }]);
});

test('lineColumn counts 1-based lines and columns', () => {
  const text = 'ab\ncd\n\nef';
  assert.deepEqual(lineColumn(text, 0), { line: 1, column: 1 });
  assert.deepEqual(lineColumn(text, 4), { line: 2, column: 2 });
  assert.deepEqual(lineColumn(text, 7), { line: 4, column: 1 });
});

test('JSON nested deeper than the stack allows is a problem with a position, not a throw', () => {
  const depth = 200_000;
  const text = `{"tools": [\n${'['.repeat(depth)}${']'.repeat(depth)}]}`;
  const load = loadSpecText(text, 'deep.json');
  assert.ok(!load.ok);
  assert.deepEqual(load.problem, { file: 'deep.json', line: 2, column: depth, message: 'invalid JSON: nested too deeply' });
});

test('lineColumnIndex agrees with lineColumn at every offset, past the end too', () => {
  for (const text of ['', 'ab\ncd\n\nef', '\n\nx\r\ny\n']) {
    const at = lineColumnIndex(text);
    for (let offset = 0; offset <= text.length + 2; offset++)
      assert.deepEqual(at(offset), lineColumn(text, offset), `offset ${offset} of ${JSON.stringify(text)}`);
  }
});

test('strict parsing rejects comments that config parsing allows', () => {
  const text = '{\n  // servers\n  "tools": [],\n}';
  assert.equal(parseJsonText(text, 'a.jsonc').ok, true);
  const strict = parseJsonText(text, 'a.json', { strict: true });
  assert.ok(!strict.ok);
  assert.equal(strict.problem.line, 2);
});
