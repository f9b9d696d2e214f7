/** A spec's findings placed in the server source, with the fixes they offer and ignore comments honoured. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { locateTools } from '../../../../src/core/sources/locate';
import { lintSource, matchSpec, type TextEdit } from '../../../../src/core/sources/place';
import type { Spec } from '../../../../src/core/spec/model';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { configsDir, specsDir } from '../../fixturePaths';

function spec(text: string, file = 'spec.json'): Spec {
  const load = loadSpecText(text, file);
  assert.ok(load.ok, file);
  return load.spec;
}
const fixtureSpec = (name: string): Spec => spec(readFileSync(join(specsDir, name), 'utf8'), name);
const apply = (text: string, e: TextEdit): string => text.slice(0, e.offset) + e.newText + text.slice(e.offset + e.length);
const at = (d: { range: { start: { line: number; character: number } } }): string => `${d.range.start.line + 1}:${d.range.start.character + 1}`;

test('many-params goes on the registerTool name of the 9-parameter tool, with a one-sentence message', async () => {
  const file = join(configsDir, 'sources', 'typescript', 'modelcontextprotocol__servers__src_sequentialthinking_index.ts');
  const text = readFileSync(file, 'utf8');
  const found = lintSource(text, await locateTools(text, file), fixtureSpec('sequential-thinking.json'));
  const many = found.find((d) => d.code === 'many-params');
  assert.equal(many && at(many), '30:4');
  assert.equal(many?.summary, 'Tool "sequentialthinking" takes 9 parameters (more than 8).');
});

test('a parameter finding goes on the parameter key in a Python dict schema, with a format fix in its quotes', async () => {
  const file = join(configsDir, 'sources', 'python', 'modelcontextprotocol__servers__src_time_src_mcp_server_time_server.py');
  const text = readFileSync(file, 'utf8');
  const located = await locateTools(text, file);
  const time = fixtureSpec('time-official.json');
  assert.equal(matchSpec(located, [{ spec: fixtureSpec('everart.json') }, { spec: time }])?.spec, time);
  const free = lintSource(text, located, time).find((d) => d.code === 'free-text-format');
  assert.equal(free && at(free), '196:26');
  const fix = free?.fixes.find((f) => f.title.startsWith('Add format'));
  assert.ok(fix);
  const fixed = apply(text, fix.edit).split('\n')[196 - 1];
  assert.equal(fixed, '                        "time": { "format": "date-time",');
});

test('client findings: Gemini rewrites on the tool name; `default` alone is not one (Gemini accepts it)', async () => {
  const file = join(configsDir, 'sources', 'typescript', 'modelcontextprotocol__servers__src_sequentialthinking_index.ts');
  const text = readFileSync(file, 'utf8');
  const found = lintSource(text, await locateTools(text, file), fixtureSpec('sequential-thinking.json'), { clients: ['gemini'] });
  assert.deepEqual(
    found.filter((d) => d.code === 'gemini-schema').map((d) => [at(d), d.summary]),
    [['30:4', 'Gemini needs this schema rewritten (type arrays as nullable/anyOf).']],
  );
  const everart = join(configsDir, 'sources', 'typescript', 'modelcontextprotocol__servers__src_everart_index.ts');
  const everartText = readFileSync(everart, 'utf8');
  const e = lintSource(everartText, await locateTools(everartText, everart), fixtureSpec('everart.json'), { clients: ['gemini'] });
  assert.deepEqual(
    e.filter((d) => d.code === 'gemini-schema'),
    [],
  );
});

const SOURCE = [
  'server.registerTool(',
  '  "search",',
  '  {',
  '    inputSchema: {',
  '      query: z.string(),',
  '      // agent-seer-ignore param-no-description',
  '      limit: z.number(),',
  '      since: z.string().describe("Only items changed since then"),',
  '      page: z.number(),',
  '    },',
  '  },',
  '  handler,',
  ');',
  'server.registerTool("fetch", { description: "d", inputSchema: { page: z.string() } }, handler);',
].join('\n');

const SPEC = JSON.stringify({
  tools: [
    {
      name: 'search',
      description: 'Search.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'number' },
          since: { type: 'string', description: 'Only items changed since then' },
          page: { type: 'number', description: 'Result page number, from 1' },
        },
        required: ['query'],
      },
    },
    {
      name: 'fetch',
      description: 'Fetch.',
      inputSchema: { type: 'object', properties: { page: { type: 'string', description: 'Browser tab identifier to read' } } },
    },
  ],
});

test('zod fixes: .describe("TODO") after the value, .datetime() right after z.string(); the ignore comment silences its line', async () => {
  const located = await locateTools(SOURCE, 'server.ts');
  const found = lintSource(SOURCE, located, spec(SPEC));
  const noDescription = found.filter((d) => d.code === 'param-no-description');
  assert.deepEqual(
    noDescription.map((d) => d.param),
    ['query'],
    'limit is ignored by the comment above it',
  );
  const stub = noDescription[0]?.fixes[0];
  assert.equal(stub?.title, 'Add a description for "query"');
  assert.equal(apply(SOURCE, stub.edit).split('\n')[4], '      query: z.string().describe("TODO"),');
  const since = found.find((d) => d.code === 'free-text-format' && d.param === 'since');
  const format = since?.fixes.find((f) => f.title === 'Add .datetime()');
  assert.ok(format);
  assert.equal(apply(SOURCE, format.edit).split('\n')[7], '      since: z.string().datetime().describe("Only items changed since then"),');
  const ignore = since?.fixes.find((f) => f.title === 'Ignore free-text-format here');
  const ignored = apply(SOURCE, ignore!.edit);
  assert.equal(ignored.split('\n')[7], '      // agent-seer-ignore free-text-format');
  const again = lintSource(ignored, await locateTools(ignored, 'server.ts'), spec(SPEC));
  assert.equal(again.filter((d) => d.code === 'free-text-format').length, 0, 'the inserted comment is honoured');
});

test('ambiguous-shared-param: once per parameter name, the other tool as related information', async () => {
  const found = lintSource(SOURCE, await locateTools(SOURCE, 'server.ts'), spec(SPEC));
  const shared = found.filter((d) => d.code === 'ambiguous-shared-param');
  assert.equal(shared.length, 1);
  assert.equal(shared[0]?.tool, 'search');
  assert.equal(at(shared[0]), '9:7');
  assert.deepEqual(
    shared[0]?.related?.map((r) => [r.tool, r.range.start.line + 1]),
    [['fetch', 14]],
  );
  assert.match(shared[0]?.summary ?? '', /^Parameter "page" means different things across 2 tools here/);
});

test('JSON Schema and Python fixes: a description key after the brace, an Args line in the docstring', async () => {
  const ts = 'const TOOLS = [{ name: "t", inputSchema: { type: "object", properties: { q: { type: "string" } } } }];';
  const tsSpec = spec(JSON.stringify({ tools: [{ name: 't', description: 'T.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }] }));
  const tsFix = lintSource(ts, await locateTools(ts, 's.ts'), tsSpec).find((d) => d.code === 'param-no-description')?.fixes[0];
  assert.equal(apply(ts, tsFix!.edit), ts.replace('q: {', 'q: { description: "TODO",'));

  const py = ['@mcp.tool()', 'def lookup(ctx: Context, city: str) -> str:', '    """Look up a city."""', '    return city', ''].join('\n');
  const pySpec = spec(
    JSON.stringify({ tools: [{ name: 'lookup', description: 'L.', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }),
  );
  const located = await locateTools(py, 's.py');
  assert.deepEqual([...(located.tools[0]?.params.keys() ?? [])], ['city'], 'ctx is injected, not an argument');
  const pyFix = lintSource(py, located, pySpec).find((d) => d.code === 'param-no-description')?.fixes[0];
  assert.equal(apply(py, pyFix!.edit), py.replace('"""Look up a city."""', '"""Look up a city.\n\n    Args:\n        city: TODO\n    """'));
  const ignore = lintSource(py, located, pySpec).find((d) => d.code === 'param-no-description')?.fixes[1];
  assert.equal(ignore?.edit.newText, '# agent-seer-ignore param-no-description\n');
});
