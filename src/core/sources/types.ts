/**
 * What the source locators report: where each MCP tool is defined in a server's source code, so
 * a spec's findings can be shown there. Offsets are UTF-16 code units into the file's text (what
 * editors and `lineColumnIndex` count).
 */
import type { SourceRange } from '../spec/model';

/** How a parameter is declared, which decides what a mechanical fix inserts and where. */
export type ParamStyle =
  /** A zod shape entry (`name: z.string()`): a description is `.describe("…")` after the value. */
  | { kind: 'zod'; valueStart: number; valueEnd: number; quote: string }
  /** A JSON Schema property object (`name: { type: "string" }`): a description is a key after `{`. */
  | { kind: 'json'; objectStart: number; quote: string; quotedKeys: boolean }
  /** A Python function parameter: a description is an `Args:` line of the docstring. */
  | { kind: 'python'; docstring?: { contentEnd: number; indent: string }; bodyStart: number; bodyIndent: string };

/** One parameter of a tool as written in source. */
export interface SourceParam {
  /** The parameter's key or identifier. */
  range: SourceRange;
  style: ParamStyle;
}

/** One tool definition found in a source file. */
export interface SourceTool {
  /** The tool's name as the server reports it. */
  name: string;
  /** The name as written: the string literal, the `name=` value or the function name. */
  nameRange: SourceRange;
  /** Top-level parameters in source order. */
  params: Map<string, SourceParam>;
}

/** What a locator found in one file. */
export interface LocatedSource {
  file: string;
  tools: SourceTool[];
}
