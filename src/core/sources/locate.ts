/**
 * Locating MCP tool definitions in server source files: which files are sources, a cheap test for
 * whether one may define tools, and the parser for its language.
 */
import { locatePythonTools } from './python';
import type { LocatedSource } from './types';
import { locateTypescriptTools } from './typescript';

/** The languages tool definitions are located in. */
export type SourceLanguage = 'typescript' | 'python';

/** The language of a source file by its extension; undefined for anything else. */
export function sourceLanguage(file: string): SourceLanguage | undefined {
  const lower = file.toLowerCase();
  if (/\.(?:[cm]?[jt]s|[jt]sx)$/.test(lower) && !lower.endsWith('.d.ts')) return 'typescript';
  if (lower.endsWith('.py')) return 'python';
  return undefined;
}

/** Words every supported way of defining a tool writes; a file without any is not parsed. */
const TOOL_WORDS = /registerTool|\.tool\s*\(|inputSchema|@\s*[\w.]*\btool\b/;

/** Whether a source text may define tools (cheap: a text test before any parser loads). */
export function mayDefineTools(text: string): boolean {
  return TOOL_WORDS.test(text);
}

/** The glob of every file `sourceLanguage` accepts, for a workspace search. */
export const SOURCE_GLOB = '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs,py}';

/** Locates the tools a source file defines; none for a file of another language. */
export async function locateTools(text: string, file: string): Promise<LocatedSource> {
  const language = sourceLanguage(file);
  if (language === 'typescript') return locateTypescriptTools(text, file);
  if (language === 'python') return locatePythonTools(text, file);
  return { file, tools: [] };
}
