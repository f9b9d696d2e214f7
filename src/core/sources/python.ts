/**
 * Finds MCP tool definitions in Python with the tree-sitter Python grammar (WebAssembly, no
 * native build): FastMCP-style decorators (`@mcp.tool`, `@mcp.tool()`, `@server.tool(name=…)`),
 * named by `name=` (or a first string argument) or else by the function, with the function's
 * parameters; and the low-level server's `Tool(name=…, inputSchema={…})` objects, whose name may
 * be an `Enum` member's `.value` defined in the same file.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Node, Parser } from 'web-tree-sitter';
import type { LocatedSource, SourceParam, SourceTool } from './types';

/** Parameters FastMCP fills itself: never tool arguments. */
const INJECTED = new Set(['self', 'cls', 'ctx', 'context']);

/**
 * Where a wasm file is: next to this code when bundled (the build copies them into `dist/`),
 * else in its npm package.
 */
function wasmPath(file: string, packageEntry: string): string {
  const bundled = path.join(__dirname, file);
  return existsSync(bundled) ? bundled : require.resolve(packageEntry);
}

let parserPromise: Promise<Parser> | undefined;

/** One parser for the process: the grammar loads once, on the first Python source. */
function pythonParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, with its wasm
    const treeSitter = require('web-tree-sitter') as typeof import('web-tree-sitter');
    const runtime = wasmPath('tree-sitter.wasm', 'web-tree-sitter/tree-sitter.wasm');
    await treeSitter.Parser.init({ locateFile: () => runtime });
    const language = await treeSitter.Language.load(wasmPath('tree-sitter-python.wasm', 'tree-sitter-python/tree-sitter-python.wasm'));
    const parser = new treeSitter.Parser();
    parser.setLanguage(language);
    return parser;
  })();
  // A failed load is retried on the next file rather than cached forever.
  parserPromise.catch(() => (parserPromise = undefined));
  return parserPromise;
}

const children = (node: Node | null | undefined): Node[] => (node ? node.namedChildren.filter((c): c is Node => c !== null) : []);

/** A plain string literal's content and where it starts (f-strings and concatenations are not names). */
function stringContent(node: Node | null | undefined): { value: string; start: number } | undefined {
  if (node?.type !== 'string') return undefined;
  const parts = children(node);
  if (parts.some((p) => p.type === 'interpolation')) return undefined;
  const content = parts.find((p) => p.type === 'string_content');
  const start = parts.find((p) => p.type === 'string_start');
  if (!start) return undefined;
  return { value: content?.text ?? '', start: content?.startIndex ?? start.endIndex };
}

function keywordArgument(call: Node, name: string): Node | undefined {
  for (const arg of children(call.childForFieldName('arguments'))) {
    if (arg.type === 'keyword_argument' && arg.childForFieldName('name')?.text === name) return arg.childForFieldName('value') ?? undefined;
  }
  return undefined;
}

/** `mcp.tool`, `server.tool`, `tool`: the decorator names a tool registration. */
function isToolDecorator(expr: Node): boolean {
  const target = expr.type === 'call' ? expr.childForFieldName('function') : expr;
  if (!target) return false;
  if (target.type === 'identifier') return target.text === 'tool';
  return target.type === 'attribute' && target.childForFieldName('attribute')?.text === 'tool';
}

/** Locates the tools defined in one Python file. Never throws for odd syntax. */
export async function locatePythonTools(text: string, file: string): Promise<LocatedSource> {
  const parser = await pythonParser();
  const tree = parser.parse(text);
  if (!tree) return { file, tools: [] };
  try {
    const root = tree.rootNode;
    const enums = enumValues(root);
    const tools: SourceTool[] = [];
    for (const decorated of root.descendantsOfType('decorated_definition')) {
      if (!decorated) continue;
      const fn = decorated.childForFieldName('definition');
      if (fn?.type !== 'function_definition') continue;
      const decorator = children(decorated)
        .filter((d) => d.type === 'decorator')
        .map((d) => children(d)[0])
        .find((e): e is Node => e !== undefined && isToolDecorator(e));
      if (!decorator) continue;
      tools.push(decoratedTool(fn, decorator));
    }
    for (const call of root.descendantsOfType('call')) {
      const fnName = call?.childForFieldName('function');
      if (!call || !fnName || !(fnName.text === 'Tool' || fnName.text.endsWith('.Tool'))) continue;
      const nameNode = keywordArgument(call, 'name');
      const literal = stringContent(nameNode);
      const name = literal?.value ?? (nameNode ? enums.get(nameNode.text.replace(/\.value$/, '')) : undefined);
      if (!nameNode || name === undefined) continue;
      const nameRange = literal
        ? { offset: literal.start, length: literal.value.length }
        : { offset: nameNode.startIndex, length: nameNode.endIndex - nameNode.startIndex };
      tools.push({ name, nameRange, params: dictParams(keywordArgument(call, 'inputSchema')) });
    }
    tools.sort((a, b) => a.nameRange.offset - b.nameRange.offset);
    return { file, tools };
  } finally {
    tree.delete();
  }
}

function decoratedTool(fn: Node, decorator: Node): SourceTool {
  const fnName = fn.childForFieldName('name');
  let name = fnName?.text ?? '';
  let nameRange = { offset: fnName?.startIndex ?? fn.startIndex, length: name.length };
  if (decorator.type === 'call') {
    const first = children(decorator.childForFieldName('arguments'))[0];
    const literal = stringContent(keywordArgument(decorator, 'name')) ?? stringContent(first);
    if (literal) {
      name = literal.value;
      nameRange = { offset: literal.start, length: literal.value.length };
    }
  }
  const body = fn.childForFieldName('body');
  const firstStatement = children(body)[0];
  const bodyIndent = ' '.repeat(firstStatement?.startPosition.column ?? 4);
  const docNode = firstStatement?.type === 'expression_statement' ? children(firstStatement)[0] : undefined;
  let docstring: { contentEnd: number; indent: string } | undefined;
  if (docNode?.type === 'string') {
    const end = children(docNode).find((p) => p.type === 'string_end');
    if (end) docstring = { contentEnd: end.startIndex, indent: bodyIndent };
  }
  const params = new Map<string, SourceParam>();
  for (const p of children(fn.childForFieldName('parameters'))) {
    // `name`, `name: T`, `name=v`, `name: T = v`; *args, **kwargs and `/`, `*` markers are not arguments.
    const id = p.type === 'identifier' ? p : (p.childForFieldName('name') ?? children(p).find((c) => c.type === 'identifier'));
    if (!id || id.type !== 'identifier' || !['identifier', 'typed_parameter', 'default_parameter', 'typed_default_parameter'].includes(p.type)) continue;
    if (INJECTED.has(id.text) || /\bContext\b/.test(p.childForFieldName('type')?.text ?? '')) continue;
    const style: SourceParam['style'] = docstring
      ? { kind: 'python', docstring, bodyStart: firstStatement?.startIndex ?? fn.endIndex, bodyIndent }
      : { kind: 'python', bodyStart: firstStatement?.startIndex ?? fn.endIndex, bodyIndent };
    params.set(id.text, { range: { offset: id.startIndex, length: id.text.length }, style });
  }
  return { name, nameRange, params };
}

/** The `properties` of a JSON Schema written as a Python dict literal. */
function dictParams(schema: Node | undefined): Map<string, SourceParam> {
  const params = new Map<string, SourceParam>();
  if (schema?.type !== 'dictionary') return params;
  const properties = children(schema).find((pair) => pair.type === 'pair' && stringContent(pair.childForFieldName('key'))?.value === 'properties');
  const dict = properties?.childForFieldName('value');
  if (dict?.type !== 'dictionary') return params;
  for (const pair of children(dict)) {
    const key = stringContent(pair.childForFieldName('key'));
    const value = pair.childForFieldName('value');
    if (pair.type !== 'pair' || !key || !value) continue;
    const quote = pair.childForFieldName('key')?.text[0] === "'" ? "'" : '"';
    params.set(key.value, {
      range: { offset: key.start, length: key.value.length },
      style: { kind: 'json', objectStart: value.type === 'dictionary' ? value.startIndex + 1 : value.startIndex, quote, quotedKeys: true },
    });
  }
  return params;
}

/** `Class.MEMBER` → its string value, for every `NAME = "value"` in a class body of the file. */
function enumValues(root: Node): Map<string, string> {
  const values = new Map<string, string>();
  for (const cls of root.descendantsOfType('class_definition')) {
    const className = cls?.childForFieldName('name')?.text;
    if (!cls || !className) continue;
    for (const statement of children(cls.childForFieldName('body'))) {
      const assignment = children(statement)[0];
      if (statement.type !== 'expression_statement' || assignment?.type !== 'assignment') continue;
      const left = assignment.childForFieldName('left');
      const right = stringContent(assignment.childForFieldName('right'));
      if (left?.type === 'identifier' && right) values.set(`${className}.${left.text}`, right.value);
    }
  }
  return values;
}
