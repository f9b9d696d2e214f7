/**
 * Finds MCP tool definitions in TypeScript and JavaScript with the TypeScript compiler's parser:
 * `server.registerTool(name, {inputSchema})`, `server.tool(name, description?, shape, handler)`,
 * and tool objects `{name: "…", inputSchema: {…}}` (what a `ListToolsRequestSchema` handler
 * returns, inline or from a constant). Only syntax is read; nothing is type-checked or run.
 */
import type * as TS from 'typescript';
import type { LocatedSource, SourceParam, SourceTool } from './types';

/**
 * The compiler is several megabytes: it is loaded on the first TypeScript source, not when the
 * module is imported (the extension activates without it).
 */
function loadTypescript(): typeof TS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy load of a large module, see above
  return require('typescript') as typeof TS;
}

/** Script kind from the file name, so `.js`/`.jsx` parse with JSX allowed where it should be. */
function scriptKind(ts: typeof TS, file: string): TS.ScriptKind {
  const lower = file.toLowerCase();
  if (lower.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (lower.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(lower)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/** Locates the tools defined in one TypeScript or JavaScript file. Never throws for odd syntax. */
export function locateTypescriptTools(text: string, file: string): LocatedSource {
  const ts = loadTypescript();
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(ts, file));
  // Fixes insert quotes in the file's own style.
  const quote = (text.match(/'/g)?.length ?? 0) > (text.match(/"/g)?.length ?? 0) ? "'" : '"';
  const tools: SourceTool[] = [];
  const variables = new Map<string, TS.Expression>();

  const collectVariables = (node: TS.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) variables.set(node.name.text, node.initializer);
    ts.forEachChild(node, collectVariables);
  };
  collectVariables(sf);

  const stringValue = (node: TS.Node | undefined): { value: string; start: number } | undefined => {
    if (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) return { value: node.text, start: node.getStart(sf) + 1 };
    return undefined;
  };

  const propertyName = (p: TS.ObjectLiteralElementLike): { name: string; node: TS.Node } | undefined => {
    if (!p.name) return undefined;
    if (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) || ts.isNumericLiteral(p.name)) return { name: p.name.text, node: p.name };
    return undefined;
  };

  const property = (obj: TS.ObjectLiteralExpression, key: string): TS.Expression | undefined => {
    for (const p of obj.properties) {
      if (propertyName(p)?.name !== key) continue;
      if (ts.isPropertyAssignment(p)) return p.initializer;
      if (ts.isShorthandPropertyAssignment(p)) return p.name;
    }
    return undefined;
  };

  /** Follows what a schema is written as to the object literal that lists its parameters. */
  const schemaObject = (expr: TS.Expression | undefined, depth = 0): TS.ObjectLiteralExpression | undefined => {
    if (!expr || depth > 5) return undefined;
    if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isSatisfiesExpression(expr)) return schemaObject(expr.expression, depth + 1);
    if (ts.isObjectLiteralExpression(expr)) return expr;
    if (ts.isIdentifier(expr)) return schemaObject(variables.get(expr.text), depth + 1);
    // `z.object({...})`, `zodToJsonSchema(X)`, `z.object({...}).strict()`: the first object argument.
    if (ts.isCallExpression(expr)) {
      for (const arg of expr.arguments) {
        const inner = schemaObject(arg, depth + 1);
        if (inner) return inner;
      }
      if (ts.isPropertyAccessExpression(expr.expression)) return schemaObject(expr.expression.expression, depth + 1);
    }
    // `Schema.shape`
    if (ts.isPropertyAccessExpression(expr) && expr.name.text === 'shape') return schemaObject(expr.expression, depth + 1);
    return undefined;
  };

  /** Parameters of a schema: a JSON Schema object's `properties`, or a zod shape's entries. */
  const paramsOf = (schema: TS.ObjectLiteralExpression | undefined): Map<string, SourceParam> => {
    const params = new Map<string, SourceParam>();
    if (!schema) return params;
    const props = property(schema, 'properties');
    const jsonProps = props ? schemaObject(props) : undefined;
    const isJson = jsonProps !== undefined || property(schema, 'type') !== undefined;
    for (const p of (jsonProps ?? schema).properties) {
      const key = propertyName(p);
      if (!key || !ts.isPropertyAssignment(p)) continue;
      if (isJson && !jsonProps) break; // `{type: "object"}` with no properties
      const range = { offset: key.node.getStart(sf) + (ts.isStringLiteral(key.node) ? 1 : 0), length: key.name.length };
      const value = p.initializer;
      if (isJson) {
        const obj = ts.isObjectLiteralExpression(value) ? value : undefined;
        params.set(key.name, { range, style: { kind: 'json', objectStart: obj ? obj.getStart(sf) + 1 : value.getStart(sf), quote, quotedKeys: false } });
      } else params.set(key.name, { range, style: { kind: 'zod', valueStart: value.getStart(sf), valueEnd: value.getEnd(), quote } });
    }
    return params;
  };

  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const name = stringValue(node.arguments[0]);
      if (name && (method === 'registerTool' || method === 'tool')) {
        let shape: TS.ObjectLiteralExpression | undefined;
        if (method === 'registerTool') {
          const config = schemaObject(node.arguments[1]);
          shape = config ? schemaObject(property(config, 'inputSchema')) : undefined;
        } else {
          // tool(name, description?, shape?, annotations?, handler): the first object argument is the shape.
          for (const arg of node.arguments.slice(1)) {
            if (ts.isArrowFunction(arg) || ts.isFunctionExpression(arg)) break;
            shape = schemaObject(arg);
            if (shape) break;
          }
        }
        tools.push({ name: name.value, nameRange: { offset: name.start, length: name.value.length }, params: paramsOf(shape) });
      }
    }
    if (ts.isObjectLiteralExpression(node)) {
      const name = stringValue(property(node, 'name'));
      const input = property(node, 'inputSchema');
      if (name && input) tools.push({ name: name.value, nameRange: { offset: name.start, length: name.value.length }, params: paramsOf(schemaObject(input)) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { file, tools };
}
