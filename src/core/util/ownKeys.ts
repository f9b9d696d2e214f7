/**
 * `__proto__` as an ordinary key. JSON allows any property name, and a tool parameter, an
 * argument or a mock output may well be called `__proto__`. Native `JSON.parse` keeps such a key
 * as an own data property, but three things in our path do not:
 *
 * - assignment (`out[key] = value`, `Object.assign`) into a plain object runs the inherited
 *   `__proto__` setter: the key vanishes and the object's prototype is replaced (jsonc-parser's
 *   values are built that way, and so were ours);
 * - zod strips an own `__proto__` from every object, record and loose object it parses (on
 *   purpose, see `$ZodRecord` in zod's core), so a record read back loses the argument;
 * - code that rebuilds an object key by key.
 *
 * {@link setOwn} writes a key as an own data property whatever its name; {@link keepOwnKeys}
 * puts back what a schema's parse dropped, and {@link safeParseKeepingKeys} is a schema's
 * `safeParse` with it. Spread (`{ ...o }`), `Object.entries`/`fromEntries` and `structuredClone`
 * keep the key already (they define properties rather than assign them).
 */
import { isRecord } from './isRecord';

const PROTO = '__proto__';

/** Sets `key` on `obj` as an own, enumerable data property, even when it is `__proto__`. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === PROTO) Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/**
 * Puts every own `__proto__` of `input` back into `output`, where a parse that mirrors the input's
 * shape (a zod schema: same keys, same array indexes) dropped it. Returns `output`, changed in
 * place. Values the parse kept are walked for deeper keys; a dropped one is taken from the input
 * as it was (a free-form value: zod had nothing to check in it either).
 */
export function keepOwnKeys<T>(input: unknown, output: T): T {
  restore(input, output, 0);
  return output;
}

/** Nesting deeper than this is not walked (inputs are parsed from bounded files; this only guards the stack). */
const MAX_DEPTH = 2000;

function restore(input: unknown, output: unknown, depth: number): void {
  if (depth > MAX_DEPTH || input === output || typeof input !== 'object' || input === null || typeof output !== 'object' || output === null) return;
  if (Array.isArray(input)) {
    if (!Array.isArray(output)) return;
    const n = Math.min(input.length, output.length);
    for (let i = 0; i < n; i++) restore(input[i], output[i], depth + 1);
    return;
  }
  if (!isRecord(output) || Array.isArray(output)) return;
  for (const key of Object.keys(input)) {
    const had = (input as Record<string, unknown>)[key];
    if (key === PROTO && !Object.prototype.hasOwnProperty.call(output, PROTO)) {
      setOwn(output, PROTO, had);
      continue;
    }
    if (Object.prototype.hasOwnProperty.call(output, key)) restore(had, output[key], depth + 1);
  }
}

/** What a zod schema's `safeParse` returns (structurally: util imports no zod). */
type SafeParsed<T> = { success: true; data: T } | { success: false; error: unknown };

/** `schema.safeParse(input)` with the `__proto__` keys the parse dropped put back. */
export function safeParseKeepingKeys<R extends SafeParsed<unknown>>(schema: { safeParse(input: unknown): R }, input: unknown): R {
  const r = schema.safeParse(input);
  if (r.success) keepOwnKeys(input, r.data);
  return r;
}

/** `schema.parse(input)` with the `__proto__` keys the parse dropped put back. */
export function parseKeepingKeys<T>(schema: { parse(input: unknown): T }, input: unknown): T {
  return keepOwnKeys(input, schema.parse(input));
}
