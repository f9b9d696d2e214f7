/**
 * Tool names the LLM providers refuse as function names. An MCP server may name a tool anything,
 * but a client that offers it to a model sends the name as a function declaration's, and the
 * request fails (or the client drops or renames the tool) when the provider's rule is broken:
 *
 * - OpenAI: letters, digits, `_` and `-`, 1–64 characters
 *   (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools);
 * - Gemini: starts with a letter or `_`; letters, digits, `_`, `.`, `:` and `-`; at most 64
 *   (https://ai.google.dev/api/caching#FunctionDeclaration).
 */

/** OpenAI's function-name rule. */
export const OPENAI_FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Gemini's function-name rule. */
export const GEMINI_FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;
/** Longest name both accept. */
export const MAX_FUNCTION_NAME = 64;

/** The providers that refuse `name`, and why in a few words (empty when both accept it). */
export function refusedName(name: string): { by: string[]; why: string } {
  const by = [...(OPENAI_FUNCTION_NAME.test(name) ? [] : ['OpenAI']), ...(GEMINI_FUNCTION_NAME.test(name) ? [] : ['Gemini'])];
  if (!by.length) return { by, why: '' };
  if (name.length === 0) return { by, why: 'it is empty' };
  if (name.length > MAX_FUNCTION_NAME) return { by, why: `it is ${name.length.toLocaleString('en-US')} characters long (at most ${MAX_FUNCTION_NAME})` };
  const bad = [...name].find((c) => !/[a-zA-Z0-9_.:-]/.test(c));
  if (bad !== undefined) return { by, why: `it contains ${describeChar(bad)}` };
  if (/[.:]/.test(name)) return { by, why: 'it contains "." or ":" (OpenAI takes letters, digits, "_" and "-" only)' };
  return { by, why: 'it must start with a letter or "_" (Gemini)' };
}

/** A character as a reader can see it: printable ones quoted, the rest as U+XXXX. */
function describeChar(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  const printable = code > 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0x9f) && !/\p{Cf}|\p{Zl}|\p{Zp}/u.test(c);
  return printable ? `"${c}"` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A name fit for a one-line message: control and format characters escaped, long ones cut with their length. */
export function shownName(name: string, max = 60): string {
  const cut = name.length > max ? `${name.slice(0, max)}…` : name;
  // eslint-disable-next-line no-control-regex -- control characters are what this escapes
  const escaped = cut.replace(/[\u0000-\u001f\u007f-\u009f]|\p{Cf}|\p{Zl}|\p{Zp}/gu, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
  return name.length > max ? `${escaped} (${name.length.toLocaleString('en-US')} characters)` : escaped;
}
