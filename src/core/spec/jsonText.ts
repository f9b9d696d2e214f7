/**
 * Reading JSON and JSONC text with errors that say where: config files are JSONC (comments,
 * trailing commas), and a truncated or binary file must become a one-line message, not a throw.
 */
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { LoadProblem } from './model';
import { setOwn } from '../util/ownKeys';

export type ParsedJson = { ok: true; value: unknown; tree: Node } | { ok: false; problem: LoadProblem };

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lastBreak = -1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lastBreak = i;
    }
  }
  return { line, column: offset - lastBreak };
}

/**
 * `lineColumn` for many offsets into one text: line starts are found once, then each lookup is a
 * binary search. Placing every finding of a large spec by rescanning from the start was quadratic.
 */
export function lineColumnIndex(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (starts[lo] as number) + 1 };
  };
}

/** 0-based positions, as editors count. */
export interface TextRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

/** An offset range as 0-based editor positions, through a line index of the text ({@link lineColumnIndex}). */
export function toRange(at: ReturnType<typeof lineColumnIndex>, r: { offset: number; length: number }): TextRange {
  const a = at(r.offset);
  const b = at(r.offset + r.length);
  return { start: { line: a.line - 1, character: a.column - 1 }, end: { line: b.line - 1, character: b.column - 1 } };
}

/** True for text that is almost certainly not text (NUL bytes in the first few KB). */
export function looksBinary(text: string): boolean {
  return text.slice(0, 8192).includes('\u0000');
}

/**
 * Parses JSON or JSONC. With `strict`, comments and trailing commas are errors; otherwise they are
 * allowed, as config files need (snapshots are read leniently too: a hand-edited one still loads).
 */
export function parseJsonText(text: string, file: string, options: { strict?: boolean } = {}): ParsedJson {
  if (looksBinary(text)) return { ok: false, problem: { file, message: 'binary file, not JSON' } };
  // Tolerate a BOM by blanking it: slicing it off would shift every offset (tool and parameter
  // locations) by one against the text the caller holds.
  const body = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const errors: ParseError[] = [];
  let tree: Node | undefined;
  let value: unknown;
  try {
    tree = parseTree(body, errors, {
      allowTrailingComma: !options.strict,
      disallowComments: options.strict ?? false,
      allowEmptyContent: false,
    });
    value = tree ? nodeValue(tree) : undefined;
  } catch (error) {
    // The parser and `nodeValue` recurse once per nesting level: a hostile file can overflow the stack.
    if (!(error instanceof RangeError)) throw error;
    const { line, column } = lineColumn(body, deepestOffset(body));
    return { ok: false, problem: { file, line, column, message: 'invalid JSON: nested too deeply' } };
  }
  const first = errors[0];
  if (first || !tree) {
    const offset = first?.offset ?? 0;
    const { line, column } = lineColumn(body, offset);
    const what = first ? describeError(printParseErrorCode(first.error)) : 'empty file';
    return { ok: false, problem: { file, line, column, message: `invalid JSON: ${what}` } };
  }
  return { ok: true, value, tree };
}

/** Offset of the first `{` or `[` at the deepest nesting (strings skipped; comments are not, which only blurs the position). */
function deepestOffset(text: string): number {
  let depth = 0;
  let deepest = 0;
  let at = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > deepest) [deepest, at] = [depth, i];
    } else if (c === 125 || c === 93) depth--;
  }
  return at;
}

function describeError(code: string): string {
  // printParseErrorCode yields names like "CommaExpected"; make them read as words.
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The plain value of a parse-tree node (jsonc-parser's getNodeValue, without its throw on error nodes). */
export function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [key, value] = prop.children ?? [];
        // `setOwn`: a key named `__proto__` stays a key (assignment would replace the prototype instead).
        if (key && typeof key.value === 'string') setOwn(out, key.value, value ? nodeValue(value) : undefined);
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

/** Child node of an object node by key. */
export function childByKey(node: Node | undefined, key: string): Node | undefined {
  if (!node || node.type !== 'object') return undefined;
  for (const prop of node.children ?? []) {
    const [k, v] = prop.children ?? [];
    if (k?.value === key) return v;
  }
  return undefined;
}

/** The key node of a property inside an object node. */
export function keyNode(node: Node | undefined, key: string): Node | undefined {
  if (!node || node.type !== 'object') return undefined;
  for (const prop of node.children ?? []) {
    const k = prop.children?.[0];
    if (k?.value === key) return k;
  }
  return undefined;
}
