/** Tool definitions found in real MCP server sources, at exact lines and columns. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { locateTools, mayDefineTools, sourceLanguage } from '../../../../src/core/sources/locate';
import { lineColumnIndex } from '../../../../src/core/spec/jsonText';
import { configsDir } from '../../fixturePaths';

/** `name line:column` (1-based) of each tool, then `  param line:column style` of its parameters. */
async function outline(relative: string): Promise<string[]> {
  const file = join(configsDir, 'sources', relative);
  const text = readFileSync(file, 'utf8');
  const at = lineColumnIndex(text);
  const where = (offset: number): string => {
    const p = at(offset);
    return `${p.line}:${p.column}`;
  };
  const lines: string[] = [];
  for (const tool of (await locateTools(text, file)).tools) {
    lines.push(`${tool.name} ${where(tool.nameRange.offset)}`);
    for (const [name, p] of tool.params) {
      assert.equal(text.slice(p.range.offset, p.range.offset + p.range.length), name, 'the range covers the name');
      lines.push(`  ${name} ${where(p.range.offset)} ${p.style.kind}`);
    }
  }
  return lines;
}

test('registerTool with a zod shape: the name literal and each shape key', async () => {
  assert.deepEqual(await outline('typescript/modelcontextprotocol__servers__src_sequentialthinking_index.ts'), [
    'sequentialthinking 30:4',
    '  thought 88:7 zod',
    '  nextThoughtNeeded 89:7 zod',
    '  thoughtNumber 90:7 zod',
    '  totalThoughts 91:7 zod',
    '  isRevision 92:7 zod',
    '  revisesThought 93:7 zod',
    '  branchFromThought 94:7 zod',
    '  branchId 95:7 zod',
    '  needsMoreThoughts 96:7 zod',
  ]);
  // Comments (with emoji) between the arguments do not shift columns.
  assert.deepEqual(await outline('typescript/0GiS0__youtube-mcp-server__mcp-stdio_src_index.ts'), ['get_youtube_channel 26:4', '  query 32:7 zod']);
});

test('a ListToolsRequestSchema handler: the name value and the JSON Schema property keys', async () => {
  assert.deepEqual(await outline('typescript/modelcontextprotocol__servers__src_everart_index.ts'), [
    'generate_image 37:14',
    '  prompt 51:11 json',
    '  model 55:11 json',
    '  image_count 61:11 json',
  ]);
});

test('FastMCP decorators: bare @mcp.tool names the function, name= overrides it (CRLF file)', async () => {
  assert.deepEqual(await outline('python/Azure-Samples__python-mcp-demos__servers_basic_mcp_http.py'), [
    'add_expense 50:11',
    '  date 51:5 python',
    '  amount 52:5 python',
    '  category 53:5 python',
    '  description 54:5 python',
    '  payment_method 55:5 python',
  ]);
  assert.deepEqual(await outline('python/modelcontextprotocol__python-sdk__examples_fastmcp_text_me.py'), ['textme 49:17', '  text_content 50:13 python']);
});

test('the low-level list_tools: Tool(name=Enum.MEMBER.value) resolved through the Enum in the file', async () => {
  assert.deepEqual(await outline('python/modelcontextprotocol__servers__src_time_src_mcp_server_time_server.py'), [
    'get_current_time 173:22',
    '  timezone 178:26 json',
    'convert_time 187:22',
    '  source_timezone 192:26 json',
    '  time 196:26 json',
    '  target_timezone 200:26 json',
  ]);
});

test('server.tool(name, description, shape, handler), a constant tool list, and what is not a tool', async () => {
  const text = [
    'const shape = { a: z.string(), "b-c": z.number() };',
    'server.tool("first", "Does one thing", shape, async () => ({ content: [] }));',
    'server.tool("second", async () => ({ content: [] }));',
    'const TOOLS = [{ name: "third", inputSchema: { type: "object", properties: { x: { type: "string" } } } }];',
    'other.tool(name, {});',
    'const notATool = { name: "n", title: "no schema" };',
  ].join('\n');
  const located = await locateTools(text, 'server.js');
  assert.deepEqual(
    located.tools.map((t) => [t.name, [...t.params.keys()]]),
    [
      ['first', ['a', 'b-c']],
      ['second', []],
      ['third', ['x']],
    ],
  );
});

test('syntax errors and other languages never throw', async () => {
  assert.deepEqual(
    (await locateTools('server.registerTool("x", {inputSchema: {a: z.', 'broken.ts')).tools.map((t) => t.name),
    ['x'],
  );
  assert.deepEqual((await locateTools('@mcp.tool\ndef broken(a:', 'broken.py')).tools.length <= 1, true);
  assert.deepEqual((await locateTools('registerTool', 'notes.md')).tools, []);
  assert.equal(sourceLanguage('types.d.ts'), undefined);
  assert.equal(sourceLanguage('a/b/server.mjs'), 'typescript');
  assert.equal(mayDefineTools('export const x = 1;'), false);
  assert.equal(mayDefineTools('@mcp.tool()\ndef f(): ...'), true);
});
