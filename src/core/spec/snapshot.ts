/**
 * Loading tool-spec snapshot files (`tools/list` results) in the shapes found in the wild:
 * `{tools:[…]}` with or without server info, a bare array, or a JSON-RPC response
 * `{result:{tools}}`. Entries that are not tools are skipped and reported, never fatal.
 */
import { basename } from 'node:path';
import type { Node } from 'jsonc-parser';
import { childByKey, nodeValue, parseJsonText } from './jsonText';
import { ServerInfo, Tool, toolIssueMessage, type LoadProblem, type Spec, type SourceRange, type ToolLocation } from './model';

export type SpecLoad = { ok: true; spec: Spec } | { ok: false; problem: LoadProblem; notSpec?: boolean };

const range = (n: Node): SourceRange => ({ offset: n.offset, length: n.length });

/** Finds the tool array node and the server info in any of the accepted shapes. */
function locateTools(root: Node): { toolsNode: Node; holder?: Node } | undefined {
  if (root.type === 'array') return { toolsNode: root };
  if (root.type !== 'object') return undefined;
  const direct = childByKey(root, 'tools');
  if (direct?.type === 'array') return { toolsNode: direct, holder: root };
  const result = childByKey(root, 'result');
  const nested = childByKey(result, 'tools');
  if (nested?.type === 'array') return { toolsNode: nested, holder: root };
  return undefined;
}

/** An entry that is recognisably a tool: an object with a string name and a schema or description. */
function looksLikeTool(t: unknown): boolean {
  return (
    t !== null && typeof t === 'object' && !Array.isArray(t) && typeof (t as { name?: unknown }).name === 'string' && ('inputSchema' in t || 'description' in t)
  );
}

/**
 * Whether a parsed value is shaped like a spec (used by folder scans to skip other JSON).
 * A `tools` array under an object (snapshot or JSON-RPC result) is a spec when its entries are
 * objects and, if there are any, at least one is recognisably a tool: the others are loaded as
 * invalid tools rather than making the whole file "not a spec". A bare array has no key to vouch
 * for it, so it must be non-empty, all objects, and contain a recognisable tool.
 */
export function isSpecShaped(value: unknown): boolean {
  const bare = Array.isArray(value);
  const tools = bare ? value : ((value as { tools?: unknown } | null)?.tools ?? (value as { result?: { tools?: unknown } } | null)?.result?.tools);
  if (!Array.isArray(tools)) return false;
  if (bare && tools.length === 0) return false;
  const allObjects = tools.every((t) => t !== null && typeof t === 'object' && !Array.isArray(t));
  return allObjects && (tools.length === 0 || tools.some(looksLikeTool));
}

/** Loads a spec from snapshot text. `file` is used for messages and as the source. */
export function loadSpecText(text: string, file: string): SpecLoad {
  const parsed = parseJsonText(text, file);
  if (!parsed.ok) return { ok: false, problem: parsed.problem };
  const found = locateTools(parsed.tree);
  if (!found || !isSpecShaped(parsed.value)) {
    return {
      ok: false,
      notSpec: true,
      problem: { file, message: 'not a tool spec: expected {"tools":[…]}, a JSON-RPC {"result":{"tools":[…]}} or an array of tools' },
    };
  }
  const root = parsed.value as Record<string, unknown>;
  const serverRaw = found.holder ? nodeValueOf(childByKey(found.holder, 'server') ?? childByKey(found.holder, 'serverInfo')) : undefined;
  const server = ServerInfo.safeParse(serverRaw);
  const tools: Tool[] = [];
  const locations: ToolLocation[] = [];
  const invalidTools: Spec['invalidTools'] = [];
  (found.toolsNode.children ?? []).forEach((toolNode, index) => {
    const result = Tool.safeParse(nodeValue(toolNode));
    if (!result.success) {
      invalidTools.push({ index, message: toolIssueMessage(result.error), location: range(toolNode) });
      return;
    }
    tools.push(result.data);
    locations.push(toolLocation(toolNode));
  });
  const spec: Spec = {
    name: server.success ? server.data.name : basename(file).replace(/\.json$/i, ''),
    source: file,
    tools,
    locations,
    invalidTools,
  };
  if (server.success) spec.server = server.data;
  if (typeof root.capturedAt === 'string') spec.capturedAt = root.capturedAt;
  return { ok: true, spec };
}

function nodeValueOf(n: Node | undefined): unknown {
  return n ? nodeValue(n) : undefined;
}

function toolLocation(toolNode: Node): ToolLocation {
  const loc: ToolLocation = { tool: range(toolNode), params: {} };
  const name = childByKey(toolNode, 'name');
  if (name) loc.name = range(name);
  const props = childByKey(childByKey(toolNode, 'inputSchema'), 'properties');
  if (props?.type === 'object') {
    for (const prop of props.children ?? []) {
      const key = prop.children?.[0];
      if (key && typeof key.value === 'string') loc.params[key.value] = range(key);
    }
  }
  return loc;
}
