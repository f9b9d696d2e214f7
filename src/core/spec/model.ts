/**
 * The spec model: what an MCP server says about its tools (`tools/list`).
 * Zod schemas are the single source of the format; types come from `z.infer`.
 * Real servers emit more than the MCP schema names (icons, execution, _meta…), so objects are
 * loose: unknown keys are kept, never rejected.
 */
import { z } from 'zod';

/** A JSON Schema object as a server sent it. Kept as data: checked by the complexity analysis, not here. */
export const JsonSchemaObject = z.record(z.string(), z.unknown());
export type JsonSchemaObject = z.infer<typeof JsonSchemaObject>;

/** MCP tool annotations (hints a client may show or use); all optional. */
export const ToolAnnotations = z.looseObject({
  /** Human-readable title. */
  title: z.string().optional(),
  /** The tool does not modify its environment. */
  readOnlyHint: z.boolean().optional(),
  /** The tool may perform destructive updates. */
  destructiveHint: z.boolean().optional(),
  /** Repeated calls with the same arguments have no further effect. */
  idempotentHint: z.boolean().optional(),
  /** The tool interacts with an open world of external entities. */
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotations>;

/** One tool as listed by `tools/list`. */
export const Tool = z.looseObject({
  /** Unique name the agent calls the tool by. */
  name: z.string().min(1),
  /** Display title (MCP 2025-06 and later). */
  title: z.string().optional(),
  /** What the tool does; the main text an agent reads. */
  description: z.string().optional(),
  /** JSON Schema of the arguments. Should be an object schema; broken ones are flagged, not rejected. */
  inputSchema: z.unknown().optional(),
  /** JSON Schema of structured results, when the server declares one. */
  outputSchema: z.unknown().optional(),
  /** Behaviour hints; servers sometimes send null. */
  annotations: ToolAnnotations.nullish(),
});
export type Tool = z.infer<typeof Tool>;

/** Why an entry failed the `Tool` schema, as one line: the first issue, prefixed with its path. */
export function toolIssueMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue?.message ?? 'not a tool'}`;
}

/** What a server says about itself at initialisation. */
export const ServerInfo = z.looseObject({
  name: z.string(),
  version: z.string().optional(),
  title: z.string().optional(),
});
export type ServerInfo = z.infer<typeof ServerInfo>;

/** A snapshot file as Agent Seer writes it (and as the fixture corpus stores them). */
export const SpecSnapshot = z.looseObject({
  /** Server name and version reported at initialisation. */
  server: ServerInfo.optional(),
  /** Where the tools came from (a command line, a URL, a note). */
  provenance: z.string().optional(),
  /** ISO time the tools were listed. */
  capturedAt: z.string().optional(),
  /** How many `tools/list` pages the server returned. */
  pages: z.number().int().optional(),
  /** The server's capabilities at initialisation. */
  capabilities: z.record(z.string(), z.unknown()).optional(),
  tools: z.array(z.unknown()),
});
export type SpecSnapshot = z.infer<typeof SpecSnapshot>;

/** A character range in a source file: offsets plus 0-based line/character for editors. */
export interface SourceRange {
  offset: number;
  length: number;
}

/** Where a tool stands in the file it was loaded from, for inline diagnostics. */
export interface ToolLocation {
  /** The whole tool object. */
  tool: SourceRange;
  /** The tool's `name` value. */
  name?: SourceRange;
  /** Each top-level parameter's key inside `inputSchema.properties`. */
  params: Record<string, SourceRange>;
}

/** A problem found while loading: says what and where, never throws for expected trouble. */
export interface LoadProblem {
  /** File the problem is in. */
  file: string;
  /** 1-based line and column when known. */
  line?: number;
  column?: number;
  message: string;
}

/** A loaded spec: one server's tools plus where they came from. */
export interface Spec {
  /** Display name: the server's own name, else derived from the file name. */
  name: string;
  server?: ServerInfo;
  /** File (or `config#server`) the spec came from. */
  source: string;
  capturedAt?: string;
  tools: Tool[];
  /** Parallel to `tools` when the spec came from a file. */
  locations?: ToolLocation[];
  /** Entries of the tool list that were not tools (index and why); they are skipped, not fatal. */
  invalidTools: { index: number; message: string; location?: SourceRange }[];
}
