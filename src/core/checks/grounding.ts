/**
 * Value grounding, the paper's dominant failure (value accuracy): for every argument value of
 * every call of a workflow, where it comes from. A value is grounded when it occurs in
 * 1. **the user's words** of the call's turn or an earlier one (`user`, with the turn), else
 * 2. **an earlier call's output** (`output`, chained: the call and the JSON path where it occurs;
 *    the earliest such call wins), else
 * 3. **the parameter's own schema**: its `enum`, `const` or `default` (`schema`),
 * and ungrounded (`none`) otherwise. Only calls before the call in the workflow count as
 * earlier; a call's own output never grounds its arguments.
 *
 * ## Which values
 * Every string and number leaf of the arguments (dotted paths, array elements by index).
 * Booleans and nulls are switches, not data: they are not listed, and neither are the numbers
 * `1`, `0` and `-1` directly under a `projection` or `sort` object (MongoDB's `{name: 1}`
 * includes a field, `{created_at: -1}` orders by it: a switch per field, not an amount). Each value gets a class:
 * `id` (identifier-like, by the rules of `idLikeReason` in `integrity.ts`, or an integer under an
 * ID-like name), `path` (starts with `/`, `~/`, `./`, `../` or a drive), `date` (ISO date or
 * date-time), `setting` (a number under a paging or limit knob: a name with `page`, `per`, `limit`,
 * `offset` or `skip` in it, one starting with `max`/`min`, or just `count`, `top`, `first`, `head`, `tail` or
 * `size`), `amount` (any other number, or a numeric string), `name` (a single-line string under
 * a parameter named like a name: `name`, `title`, `owner`, `repo`, `channel`, `branch`, `email`…),
 * `text` (other strings with spaces: queries, messages, bodies) and `token` (other one-word
 * strings: `desc`, `json`). Ungrounded `id`, `path`, `name`, `date` and `amount` values are
 * findings ({@link FINDING_CLASSES}); ungrounded settings, text and tokens count against the
 * grounding rate only, since a caller may pick a page size, word a message or pick a mode itself.
 *
 * ## Matching
 * - **Identifiers and paths are case-sensitive** (`obj_ZsUq` is not `obj_zsuq`) and match whole:
 *   the characters around the occurrence must not continue an identifier (letters, digits, `_`,
 *   `-`), and `.`, `/`, `:` count as an edge only when no letter or digit follows (before) or
 *   precedes (after) them. So `ISS-2` is not found in `ISS-204`, nor `docs/a.txt` in
 *   `/srv/docs/a.txt`, but `ISS-204` is found in "close ISS-204." A path is also found when its
 *   file name occurs in an output and its directory in the user's words or an output (a listing
 *   then a read). A numeric string under an ID name (`"1042"`) matches as an identifier.
 * - **Names, tokens and text are case-insensitive** on word edges (letters and digits), with runs
 *   of white space equal. Text (values with spaces) is also grounded when every content word of
 *   it (4+ letters) occurs in the user's words of the turns so far: a paraphrased request.
 * - **Numbers compare by value**, whatever the formatting: `1000` matches "1,000", "1000.00",
 *   "$1,000" and "1_000"; a number as an output leaf (`42` or `"42"`) matches by value; inside a
 *   text a number must stand on its own (not `2` in `page-2` or `ISS-204`, not a digit of a date);
 *   the words `zero` to `twenty` count for their numbers in the user's words ("the last five").
 * - **A JSON text in an output is read as its document**: `{"result": "{\"value\":25}"}` has the
 *   leaf `25` (at `result.value`), as an agent reading the text would see it.
 * - **Dates compare by calendar day**: an ISO date or date-time value matches the same day
 *   written as ISO (`2026-03-05`) or with the month's name ("March 5, 2026", "5 Mar 2026"); a
 *   date-time must also have its time (`HH:MM`) in the same text unless it is midnight.
 */
import { MAX_SCHEMA_EXPANSION } from '../bounds';
import type { Spec } from '../spec/model';
import { idLikeReason, isIdName, nameWords, singular } from './integrity';
import { deref, typeList, type SchemaNode } from './jsonSchemaUtil';
import { findTool } from './validateCall';
import { isRecord } from '../util/isRecord';

/** What kind of data a value is (see the module doc). */
export type ValueClass = 'id' | 'path' | 'name' | 'date' | 'amount' | 'setting' | 'text' | 'token';

/** Classes whose ungrounded values are findings: data the user or a tool must have supplied. */
export const FINDING_CLASSES: ReadonlySet<ValueClass> = new Set(['id', 'path', 'name', 'date', 'amount']);

/** Where a value comes from. */
export type GroundingSource =
  | { kind: 'user'; turn: number }
  | { kind: 'output'; call: number; path: string }
  | { kind: 'schema'; keyword: 'enum' | 'const' | 'default' }
  | { kind: 'none' };

/** One argument value and where it comes from. */
export interface GroundedValue {
  callIndex: number;
  /** Dotted path of the argument (`owner`, `filter.ids.0`). */
  param: string;
  value: string | number;
  class: ValueClass;
  source: GroundingSource;
}

/** A workflow as grounding reads it. */
export interface GroundingInput {
  /** The calls in workflow order (indices are what results cite). */
  calls: readonly { name: string; arguments: unknown }[];
  /** Output of each call, aligned by index; undefined when unknown. */
  outputs: readonly unknown[];
  /** The user's messages in order, with the calls of each turn. A call in no turn sees the first message only. */
  turns: readonly { prompt: string; calls: readonly number[] }[];
  /** The spec, for the parameters' own enum/const/default. */
  spec?: Spec;
}

const NAME_WORDS = new Set([
  'name',
  'title',
  'label',
  'username',
  'login',
  'owner',
  'repo',
  'repository',
  'channel',
  'branch',
  'email',
  'user',
  'project',
  'team',
  'org',
  'organization',
  'workspace',
  'database',
  'db',
  'table',
  'collection',
  'index',
  'bucket',
  'topic',
  'tag',
  'file',
  'filename',
  'folder',
  'directory',
  'namespace',
  'container',
  'pod',
  'service',
  'model',
  'library',
  'package',
  'site',
  'domain',
  'host',
  'recipient',
  'assignee',
  'author',
  'reviewer',
  'to',
  'from',
]);

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const PATH_START = /^(\/|~\/|\.\.?\/|[A-Za-z]:[\\/])/;
const NUMERIC = /^[-+]?\d+(\.\d+)?$/;

const SETTING_WORDS = new Set(['page', 'per', 'limit', 'offset', 'skip']);
const SETTING_ALONE = new Set(['count', 'top', 'first', 'head', 'tail', 'size']);

/** Whether a number parameter is a paging or limit knob (`per_page`, `pageSize`, `maxResults`, `limit`, `count`). */
function isSetting(param: string): boolean {
  const words = nameWords(param);
  const first = words[0];
  if (first === undefined) return false;
  return words.some((w) => SETTING_WORDS.has(w)) || first === 'max' || first === 'min' || (words.length === 1 && SETTING_ALONE.has(first));
}

/** The class of a value under a parameter name (last path segment that is not an index). */
export function valueClass(param: string, value: string | number): ValueClass {
  const number = (): ValueClass => (isIdName(param) ? 'id' : isSetting(param) ? 'setting' : 'amount');
  if (typeof value === 'number') return Number.isInteger(value) && isIdName(param) ? 'id' : number();
  if (ISO_DATE.test(value)) return 'date';
  if (PATH_START.test(value) && !value.includes('\n')) return 'path';
  if (NUMERIC.test(value)) return number();
  const reason = idLikeReason(param, value);
  if (reason === 'path') return 'path';
  if (reason) return 'id';
  const last = nameWords(param).pop();
  if (last && NAME_WORDS.has(singular(last)) && !value.includes('\n') && value.length <= 120) return 'name';
  return /\s/.test(value) ? 'text' : 'token';
}

// ---------------------------------------------------------------------------------------------
// Matching

const ID_CHAR = /[A-Za-z0-9_-]/;
const ALNUM = /[A-Za-z0-9]/;

/** Whether `needle` occurs in `hay` as a whole identifier (case-sensitive; see "Matching"). */
export function containsId(hay: string, needle: string): boolean {
  if (!needle) return false;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const b = hay[at - 1];
    const a = hay[at + needle.length];
    const beforeOk = b === undefined || (!ID_CHAR.test(b) && !(/[./:]/.test(b) && ALNUM.test(hay[at - 2] ?? '')));
    const afterOk = a === undefined || (!ID_CHAR.test(a) && !(/[./:]/.test(a) && ALNUM.test(hay[at + needle.length + 1] ?? '')));
    if (beforeOk && afterOk) return true;
  }
  return false;
}

const squashSpace = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Whether `needle` occurs in `hay` case-insensitively on word edges (letters and digits), white space runs equal. */
export function containsWords(hay: string, needle: string): boolean {
  const h = squashSpace(hay);
  const n = squashSpace(needle);
  if (!n) return false;
  for (let at = h.indexOf(n); at >= 0; at = h.indexOf(n, at + 1)) {
    const b = h[at - 1];
    const a = h[at + n.length];
    const edgeB = b === undefined || !ALNUM.test(b) || !ALNUM.test(n[0] ?? '');
    const edgeA = a === undefined || !ALNUM.test(a) || !ALNUM.test(n[n.length - 1] ?? '');
    if (edgeB && edgeA) return true;
  }
  return false;
}

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

// A number standing on its own: not glued to a word, an identifier (`ISS-204`, `page-2`) or a date (`2026-03-05`).
const NUMBER_IN_TEXT = /(?<![A-Za-z0-9_\-.:/])[-+]?[$€£]?\d(?:[\d,_]*\d)?(?:\.\d+)?(?![A-Za-z0-9_\-/]|[.:]\d)/g;

/** The numbers written in a text (see "Matching"); `words` adds the number words zero to twenty. */
export function numbersIn(text: string, words = false): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(NUMBER_IN_TEXT)) {
    const n = Number(m[0].replace(/[$€£,_]/g, ''));
    if (Number.isFinite(n)) out.push(n);
  }
  if (words) {
    const lower = text.toLowerCase();
    NUMBER_WORDS.forEach((w, n) => {
      if (new RegExp(`\\b${w}\\b`).test(lower)) out.push(n);
    });
  }
  return out;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
const pad = (n: number): string => String(n).padStart(2, '0');

/** The calendar days (`YYYY-MM-DD`) written in a text: ISO, "March 5, 2026" or "5 March 2026". */
export function datesIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)/g)) out.add(`${m[1]}-${m[2]}-${m[3]}`);
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'g'))) {
    out.add(`${m[3]}-${pad(MONTHS.indexOf(m[1] ?? '') + 1)}-${pad(Number(m[2]))}`);
  }
  for (const m of lower.matchAll(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH}\\s+(\\d{4})\\b`, 'g'))) {
    out.add(`${m[3]}-${pad(MONTHS.indexOf(m[2] ?? '') + 1)}-${pad(Number(m[1]))}`);
  }
  return out;
}

/** Whether a date value is written in a text (same calendar day; a non-midnight time must be there too). */
function dateIn(text: string, value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  if (text.includes(value)) return true;
  if (!datesIn(text).has(`${m[1]}-${m[2]}-${m[3]}`)) return false;
  const [hh, mm] = [m[4], m[5]];
  return hh === undefined || (hh === '00' && mm === '00') || text.includes(`${hh}:${mm}`) || text.includes(`${Number(hh)}:${mm}`);
}

const STOP = new Set(['that', 'this', 'with', 'from', 'into', 'about', 'their', 'there', 'these', 'those', 'please', 'have', 'will', 'what', 'when', 'which']);
const contentWords = (s: string): string[] => (s.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((w) => !STOP.has(w));

/** Whether a value is found in a text the user wrote (`user` enables number words and paraphrased text). */
export function foundInText(text: string, value: string | number, cls: ValueClass, user: boolean): boolean {
  if (typeof value === 'number') return numbersIn(text, user).includes(value);
  switch (cls) {
    case 'id':
    case 'path':
      return containsId(text, value);
    case 'date':
      return dateIn(text, value);
    case 'amount':
    case 'setting':
      return containsId(text, value) || numbersIn(text, user).includes(Number(value));
    case 'text':
      if (containsWords(text, value)) return true;
      if (!user) return false;
      {
        const words = contentWords(value);
        const have = new Set(contentWords(text));
        return words.length > 0 && words.every((w) => have.has(w));
      }
    default:
      return containsWords(text, value);
  }
}

// ---------------------------------------------------------------------------------------------
// Outputs

/**
 * Every scalar leaf and object key of an output, with its path (`items.0.id`; a key's path is the
 * key's own). A text that is a JSON object or array (what many tools return as text content) is
 * also read as that document, its leaves under the text's path.
 */
function outputLeaves(value: unknown, path: string[] = [], out: { path: string; leaf: string | number; isKey: boolean }[] = [], depth = 0): typeof out {
  if (depth > 64) return out;
  if (typeof value === 'string') {
    out.push({ path: path.join('.'), leaf: value, isKey: false });
    const doc = jsonDocument(value);
    if (doc !== undefined) outputLeaves(doc, path, out, depth + 1);
  } else if (typeof value === 'number') out.push({ path: path.join('.'), leaf: value, isKey: false });
  else if (typeof value === 'boolean') out.push({ path: path.join('.'), leaf: String(value), isKey: false });
  else if (Array.isArray(value)) value.forEach((v, i) => outputLeaves(v, [...path, String(i)], out, depth + 1));
  else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) {
      out.push({ path: [...path, k].join('.'), leaf: k, isKey: true });
      outputLeaves(v, [...path, k], out, depth + 1);
    }
  }
  return out;
}

/** The JSON object or array a text holds, or undefined (plain text, a JSON scalar, or not JSON). */
export function jsonDocument(text: string): unknown {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    const doc: unknown = JSON.parse(text);
    return isRecord(doc) || Array.isArray(doc) ? doc : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an output leaf (a scalar or, when `isKey`, an object key) holds a value of a class. */
export function leafHolds(leaf: string | number, isKey: boolean, value: string | number, cls: ValueClass): boolean {
  if (typeof value === 'number' || cls === 'amount' || cls === 'setting') {
    // A number matches a leaf of the same value, or stands on its own in prose.
    const n = Number(value);
    if (!isKey && (leaf === n || (typeof leaf === 'string' && NUMERIC.test(leaf.trim()) && Number(leaf) === n))) return true;
    if (typeof leaf === 'string' && /\s/.test(leaf) && numbersIn(leaf).includes(n)) return true;
    return typeof value === 'string' && typeof leaf === 'string' && containsId(leaf, value);
  }
  if (typeof leaf === 'string') return foundInText(leaf, value, cls, false);
  return String(leaf) === value;
}

/** Where in one output a value occurs (the JSON path), or undefined. */
function foundInOutput(leaves: ReturnType<typeof outputLeaves>, value: string | number, cls: ValueClass): string | undefined {
  for (const { path, leaf, isKey } of leaves) if (leafHolds(leaf, isKey, value, cls)) return path || '(root)';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Schema

/**
 * The schema nodes of a dotted argument path inside a tool's inputSchema (through $ref,
 * allOf/anyOf/oneOf, items), in the order a depth-first reading meets them. Nodes are shared: each
 * `$ref` is resolved once and each node is listed once however many branches lead to it, so a
 * chain of `$defs` that each name the next one twice costs its size, not 2^length (issue 18).
 */
function schemaAt(root: unknown, path: readonly string[]): SchemaNode[] {
  const resolved = new Map<unknown, SchemaNode>();
  const node = (raw: unknown): SchemaNode => {
    let n = resolved.get(raw);
    if (n === undefined) {
      n = deref(raw, root);
      resolved.set(raw, n);
    }
    return n;
  };
  const expand = (ns: Iterable<SchemaNode>): SchemaNode[] => {
    const seen = new Set<SchemaNode>();
    const out: SchemaNode[] = [];
    // Pre-order with an explicit stack (children pushed last-first), so depth costs no stack frames.
    const stack = [...ns].reverse();
    while (stack.length && out.length < MAX_SCHEMA_EXPANSION) {
      const n = stack.pop()!;
      if (seen.has(n)) continue;
      seen.add(n);
      out.push(n);
      const children: SchemaNode[] = [];
      for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
        const alts = n[k];
        if (Array.isArray(alts)) for (const a of alts) children.push(node(a));
      }
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
    return out;
  };
  let nodes: SchemaNode[] = [node(root)];
  for (const seg of path) {
    const next = new Set<SchemaNode>();
    for (const n of expand(nodes)) {
      if (/^\d+$/.test(seg) && (n.items !== undefined || Array.isArray(n.prefixItems))) {
        const item = Array.isArray(n.prefixItems) ? n.prefixItems[Number(seg)] : Array.isArray(n.items) ? n.items[Number(seg)] : n.items;
        if (item !== undefined) next.add(node(item));
        else if (isRecord(n.items)) next.add(node(n.items));
      }
      if (isRecord(n.properties) && Object.hasOwn(n.properties, seg)) next.add(node(n.properties[seg]));
      if (isRecord(n.additionalProperties)) next.add(node(n.additionalProperties));
    }
    nodes = [...next];
    if (!nodes.length) return [];
  }
  return expand(nodes);
}

const sameValue = (a: unknown, v: string | number): boolean => a === v || (typeof a === 'number' && typeof v === 'string' && String(a) === v);

/** Which keyword of the parameter's own schema supplies the value, if any. */
function fromSchema(spec: Spec | undefined, callName: string, param: string, value: string | number): 'enum' | 'const' | 'default' | undefined {
  const tool = spec ? findTool(spec, callName) : undefined;
  return tool ? schemaKeyword(tool.inputSchema ?? {}, param, value) : undefined;
}

/**
 * Which keyword (`enum`, `const`, `default`) of the parameter's own schema inside a tool's
 * `inputSchema` supplies a value, if any: the rule that a value the schema itself offers needs no
 * other source. `param` is the dotted argument path, array items by index (`stops.1.color.k`).
 */
export function schemaKeyword(inputSchema: unknown, param: string, value: string | number): 'enum' | 'const' | 'default' | undefined {
  for (const node of schemaAt(inputSchema, param.split('.'))) {
    if (Array.isArray(node.enum) && node.enum.some((e) => sameValue(e, value))) return 'enum';
    if (Object.hasOwn(node, 'const') && sameValue(node.const, value)) return 'const';
    if (Object.hasOwn(node, 'default') && sameValue(node.default, value)) return 'default';
    // A string-typed array default/enum lists the allowed members too (`{"type":"array","default":["a"]}` at the parent).
    if (typeList(node).includes('array') && Array.isArray(node.default) && node.default.some((e) => sameValue(e, value))) return 'default';
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------

/** Objects whose values switch a field on or off or order by it (`projection: {name: 1}`, `sort: {created_at: -1}`). */
const SWITCH_OBJECTS = new Set(['projection', 'sort']);

/** Whether a leaf is a per-field switch: `1`, `0` or `-1` right under a projection or sort object. */
function isFieldSwitch(path: readonly string[], value: string | number): boolean {
  const parent = path[path.length - 2];
  return (value === 1 || value === 0 || value === -1) && parent !== undefined && SWITCH_OBJECTS.has(parent.toLowerCase());
}

/** String and number leaves of an arguments object, with dotted paths and the name that classes them. */
function valueLeaves(args: unknown): { param: string; name: string; value: string | number }[] {
  const out: { param: string; name: string; value: string | number }[] = [];
  const walk = (v: unknown, path: string[], name: string, depth: number): void => {
    if (depth > 64) return;
    if ((typeof v === 'string' && v.trim() !== '') || (typeof v === 'number' && Number.isFinite(v))) {
      if (path.length && !isFieldSwitch(path, v)) out.push({ param: path.join('.'), name, value: v });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, String(i)], name, depth + 1));
    else if (isRecord(v)) for (const [k, x] of Object.entries(v)) walk(x, [...path, k], k, depth + 1);
  };
  walk(args, [], '', 0);
  return out;
}

/** Where a path value's directory and file name come from, when they are found apart (a listing, then a read). */
function pathJoin(
  value: string,
  userTexts: readonly string[],
  prior: readonly { call: number; leaves: ReturnType<typeof outputLeaves> }[],
): GroundingSource | undefined {
  const trimmed = value.replace(/[\\/]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  if (cut <= 0) return undefined;
  const dir = trimmed.slice(0, cut);
  const base = trimmed.slice(cut + 1);
  if (!base) return undefined;
  const dirKnown = userTexts.some((t) => containsId(t, dir)) || prior.some((p) => foundInOutput(p.leaves, dir, 'path') !== undefined);
  if (!dirKnown) return undefined;
  for (const p of prior) {
    const at = foundInOutput(p.leaves, base, 'token') ?? foundInOutput(p.leaves, base, 'id');
    if (at !== undefined) return { kind: 'output', call: p.call, path: at };
  }
  return undefined;
}

/** Where every argument value of every call comes from (see the module doc). Pure. */
export function groundWorkflow(input: GroundingInput): GroundedValue[] {
  const turnOf = new Map<number, number>();
  input.turns.forEach((t, ti) => t.calls.forEach((c) => turnOf.has(c) || turnOf.set(c, ti)));
  // Outputs become visible in turn order; calls in no turn come after, in index order.
  const order = [...input.turns.flatMap((t) => t.calls), ...input.calls.map((_, i) => i)].filter((c, i, all) => all.indexOf(c) === i && c < input.calls.length);
  const leaves = new Map<number, ReturnType<typeof outputLeaves>>();
  const out: GroundedValue[] = [];
  order.forEach((callIndex, position) => {
    const call = input.calls[callIndex];
    if (!call) return;
    const ti = turnOf.get(callIndex) ?? 0;
    const userTexts = input.turns.slice(0, ti + 1).map((t) => t.prompt);
    const prior = order.slice(0, position).map((c) => {
      let l = leaves.get(c);
      if (!l) {
        l = input.outputs[c] === undefined ? [] : outputLeaves(input.outputs[c]);
        leaves.set(c, l);
      }
      return { call: c, leaves: l };
    });
    for (const { param, name, value } of valueLeaves(call.arguments)) {
      const cls = valueClass(name, value);
      out.push({ callIndex, param, value, class: cls, source: sourceOf(input.spec, call.name, param, value, cls, userTexts, prior) });
    }
  });
  return out.sort((a, b) => a.callIndex - b.callIndex);
}

function sourceOf(
  spec: Spec | undefined,
  callName: string,
  param: string,
  value: string | number,
  cls: ValueClass,
  userTexts: readonly string[],
  prior: readonly { call: number; leaves: ReturnType<typeof outputLeaves> }[],
): GroundingSource {
  const turn = userTexts.findIndex((t) => foundInText(t, value, cls, true));
  if (turn >= 0) return { kind: 'user', turn };
  for (const p of prior) {
    const at = foundInOutput(p.leaves, value, cls);
    if (at !== undefined) return { kind: 'output', call: p.call, path: at };
  }
  if (cls === 'path' && typeof value === 'string') {
    const joined = pathJoin(value, userTexts, prior);
    if (joined) return joined;
  }
  const keyword = fromSchema(spec, callName, param, value);
  if (keyword) return { kind: 'schema', keyword };
  return { kind: 'none' };
}

/** Whether an ungrounded value is a finding (its class is data someone must have supplied). */
export function isUngroundedFinding(g: GroundedValue): boolean {
  return g.source.kind === 'none' && FINDING_CLASSES.has(g.class);
}

/** Words for where a value comes from: "the user's message (turn 0)", "the output of call 1 at items.0.id". */
export function describeSource(s: GroundingSource): string {
  switch (s.kind) {
    case 'user':
      return `the user's message (turn ${s.turn})`;
    case 'output':
      return `the output of call ${s.call} at ${s.path}`;
    case 'schema':
      return `the schema's ${s.keyword}`;
    case 'none':
      return 'nowhere the call could see';
  }
}

/** Counts of a grounding over a set of values: what the report's grounding rate is made of. */
export interface GroundingCounts {
  /** Values listed (string and number leaves). */
  values: number;
  user: number;
  output: number;
  schema: number;
  /** Values found nowhere. */
  none: number;
  /** Of `none`: the ones that are findings (ids, paths, names, dates, amounts). */
  findings: number;
}

/** Tallies a grounding. */
export function groundingCounts(values: readonly GroundedValue[]): GroundingCounts {
  const c: GroundingCounts = { values: values.length, user: 0, output: 0, schema: 0, none: 0, findings: 0 };
  for (const g of values) {
    c[g.source.kind]++;
    if (isUngroundedFinding(g)) c.findings++;
  }
  return c;
}
