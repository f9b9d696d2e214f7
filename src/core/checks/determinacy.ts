/**
 * Determinacy: whether a scenario is a fair test, i.e. whether every argument value of an expected
 * call is one the user's words and the outputs shown so far pin down. Grounding
 * (`grounding.ts`) asks whether a value occurs somewhere the call could see; determinacy asks
 * whether an agent could tell it is *the* value meant. A value that is grounded but not
 * determined scores a correct agent as wrong: the oracle took the first of three channels, the
 * agent asked which one.
 *
 * ## The rules (exact: no model, the same result for any harness, model-made or offline)
 * - **A value the user stated** is determined, unless it is a number (a JSON number, not a
 *   numeric string, which is more often an identifier such as a Slack `ts`) a paging knob or an
 *   amount takes (`setting`/`amount`) that the user said fewer times than calls use it: "list 25
 *   channels, then all users" states 25 for the channels, not for the users. A number that names a
 *   thing (`issue_number`, `port`, `line`) serves every call once said. The later uses are
 *   findings (`reused-statement`), unless the parameter's own schema offers the value.
 * - **A value taken from an earlier output** is determined when, at some place it occurs there,
 *   every list on the way to it that has two or more items either holds the value in every item
 *   (any item gives the same value) or has its chosen item identified by the user: a field of the
 *   item (a name, title, id, path, date…; not a one-word status or a bare number) that the user's words state and
 *   no other item of that list holds, or a word of four or more letters that the user says and
 *   that only this item's fields hold ("the newest report" among `report-2026-05.txt` and
 *   `notes.txt`). The value itself stated by the user identifies the item
 *   too (for a path, its file name). Lists are JSON arrays, JSON documents inside text, and texts
 *   of two or more bulleted lines (`[FILE] a.md`, `- a`, `1. a`). Otherwise: `item-not-identified`.
 * - **A call about one thing returns that thing**: when a call passes its own entity's identifier
 *   (`get_engagement(engagementId)`, `get_page(id)`), its output, when it holds identifiers at
 *   all, holds that one; an output that names only others, or (for an identifier proper such as
 *   `page_id`, of a call that makes nothing new) whose answered object has another `id` (`sid`,
 *   `uuid`…) of the same type, is `read-mismatch`. And an output
 *   field named like an argument (the root object's, or a single wrapped object's) that holds
 *   another identifier, name or path than the argument is `output-contradicts-call` ("create
 *   name=a" answered with name "b").
 * Values of the schema (`enum`/`const`/`default`) are determined by the schema; values found
 * nowhere are grounding's findings, not counted here.
 */
import type { DeterminacyFinding } from '../harness/format';
import {
  groundWorkflow,
  jsonDocument,
  leafHolds,
  numbersIn,
  containsId,
  foundInText,
  schemaKeyword,
  valueClass,
  type GroundedValue,
  type GroundingInput,
  type ValueClass,
} from './grounding';
import { isIdName, nameWords, singular } from './integrity';
import { findTool } from './validateCall';
import { isRecord } from '../util/isRecord';

/** Why a value is not determined (see the module doc). */
export type DeterminacyKind = DeterminacyFinding['kind'];
export type { DeterminacyFinding };

/** The determinacy of one workflow. */
export interface DeterminacyResult {
  /** Argument values grounded in the user's words or an earlier output (schema values and values found nowhere are not counted). */
  checked: number;
  /** Of `checked`: the values the user's words and the outputs shown pin down. */
  determined: number;
  /** Values taken from a list of two or more items in an earlier output. */
  fromLists: number;
  /** Of `fromLists`: the ones whose item the user identified (or every item holds). */
  identified: number;
  findings: DeterminacyFinding[];
}

/** A place in an output: the lists on the way to it, each with the index of the item taken. */
interface Occurrence {
  lists: { items: readonly unknown[]; index: number }[];
}

/** A bulleted line: `[FILE] a`, `- a`, `* a`, `1. a` (a text of two or more is a list). */
export const BULLET = /^\s*(?:\[[A-Z]+\]|[-*•]|\d+[.)])\s+\S/;

/** The bulleted lines of a text, when it has two or more (then it is a list of them). */
function bulletLines(text: string): string[] | undefined {
  if (!text.includes('\n')) return undefined;
  const lines = text.split('\n').filter((l) => BULLET.test(l));
  return lines.length >= 2 ? lines : undefined;
}

/** Every place in an output that holds the value (JSON in text read as its document; bulleted texts as lists of lines). */
function occurrences(output: unknown, value: string | number, cls: ValueClass): Occurrence[] {
  const out: Occurrence[] = [];
  const walk = (v: unknown, lists: Occurrence['lists'], depth: number): void => {
    if (depth > 64) return;
    if (typeof v === 'string') {
      const doc = jsonDocument(v);
      if (doc !== undefined) {
        walk(doc, lists, depth + 1);
        return;
      }
      const lines = bulletLines(v);
      if (lines) {
        lines.forEach((line, index) => {
          if (leafHolds(line, false, value, cls)) out.push({ lists: [...lists, { items: lines, index }] });
        });
        // Text outside the bullets (a heading) counts as a place of its own.
        const rest = v
          .split('\n')
          .filter((l) => !BULLET.test(l))
          .join('\n');
        if (rest && leafHolds(rest, false, value, cls)) out.push({ lists });
        return;
      }
      if (leafHolds(v, false, value, cls)) out.push({ lists });
    } else if (typeof v === 'number' || typeof v === 'boolean') {
      if (leafHolds(typeof v === 'number' ? v : String(v), false, value, cls)) out.push({ lists });
    } else if (Array.isArray(v)) {
      v.forEach((x, index) => walk(x, v.length >= 2 ? [...lists, { items: v, index }] : lists, depth + 1));
    } else if (isRecord(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (leafHolds(k, true, value, cls)) out.push({ lists });
        walk(x, lists, depth + 1);
      }
    }
  };
  walk(output, [], 0);
  return out;
}

/** Scalar leaves of an item with the name of the field that holds them (JSON text read as its document). */
function itemLeaves(item: unknown, key = '', out: { key: string; leaf: string | number }[] = [], depth = 0): typeof out {
  if (depth > 16) return out;
  if (typeof item === 'string') {
    const doc = jsonDocument(item);
    if (doc !== undefined) itemLeaves(doc, key, out, depth + 1);
    else out.push({ key, leaf: item });
  } else if (typeof item === 'number') out.push({ key, leaf: item });
  else if (Array.isArray(item)) for (const x of item) itemLeaves(x, key, out, depth + 1);
  else if (isRecord(item)) for (const [k, x] of Object.entries(item)) itemLeaves(x, k, out, depth + 1);
  return out;
}

/** Classes of a field that can tell one item from another (a one-word status or a page size cannot). */
const IDENTIFYING: ReadonlySet<ValueClass> = new Set(['id', 'path', 'name', 'date', 'text']);

/** Whether a leaf is worth looking for in the user's words: 3–200 characters, or a number of two or more digits. */
function telling(leaf: string | number): boolean {
  if (typeof leaf === 'number') return Number.isFinite(leaf) && Math.abs(leaf) >= 10;
  const t = leaf.trim();
  return t.length >= 3 && t.length <= 200;
}

/** The words of a bulleted line without its bullet (`[FILE] a.md` → `a.md`). */
const unbullet = (line: string): string => line.replace(/^\s*(?:\[[A-Z]+\]|[-*•]|\d+[.)])\s+/, '');

/**
 * Whether the user identified the item at `index` of a list: a field of it the user states that
 * no other item holds, or a word only its fields hold (see the module doc).
 */
function identified(items: readonly unknown[], index: number, userTexts: readonly string[]): boolean {
  const chosen = items[index];
  const said = (leaf: string | number, cls: ValueClass): boolean => userTexts.some((t) => foundInText(t, leaf, cls, true));
  if (typeof chosen === 'string' && bulletLines(items.join('\n'))) {
    // A line of a listing: its text (after the bullet) or a token of it, stated and in no other line.
    const text = unbullet(chosen);
    const tokens = [text, ...text.split(/\s+/)].filter((x) => telling(x));
    return tokens.some((tok) => said(tok, 'name') && !items.some((o, i) => i !== index && typeof o === 'string' && containsId(o, tok)));
  }
  const others = items.filter((_, i) => i !== index).map((o) => itemLeaves(o));
  const fields = itemLeaves(chosen).filter(({ key, leaf }) => telling(leaf) && IDENTIFYING.has(valueClass(key || 'value', leaf)));
  for (const { key, leaf } of fields) {
    if (!said(leaf, valueClass(key || 'value', leaf))) continue;
    if (others.some((o) => o.some((x) => x.leaf === leaf))) continue;
    return true;
  }
  // A word of the user's that only this item's fields hold ("the report" among report-2026-05.txt and notes.txt).
  const userWords = new Set(userTexts.flatMap(wordsOf));
  const otherWords = new Set(others.flatMap((o) => o.flatMap((x) => (typeof x.leaf === 'string' ? wordsOf(x.leaf) : []))));
  return fields.some(({ leaf }) => typeof leaf === 'string' && wordsOf(leaf).some((w) => userWords.has(w) && !otherWords.has(w)));
}

const WORD_STOP = new Set([
  'that',
  'this',
  'with',
  'from',
  'into',
  'about',
  'then',
  'them',
  'there',
  'these',
  'those',
  'please',
  'have',
  'will',
  'what',
  'when',
  'which',
  'item',
  'items',
  'result',
  'results',
]);

/** Lower-case words of four or more letters in a text, stop words left out. */
function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((w) => !WORD_STOP.has(w));
}

/** Whether anything in a value (leaves, keys, JSON inside text, lines of a listing) holds `value`. */
export function holdsValue(x: unknown, value: string | number, cls: ValueClass): boolean {
  return occurrences(x, value, cls).length > 0;
}

/** Whether every item of a list holds the value (any item gives the same one). */
function everyItemHolds(items: readonly unknown[], value: string | number, cls: ValueClass): boolean {
  return items.every((item) => holdsValue(item, value, cls));
}

/** The file name of a path value (`/a/b/c.md` → `c.md`), or undefined. */
function baseName(value: string): string | undefined {
  const trimmed = value.replace(/[\\/]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return cut >= 0 && cut < trimmed.length - 1 ? trimmed.slice(cut + 1) : undefined;
}

/**
 * Whether an output-grounded value is determined, and whether it came from a list; `outputs` are
 * the outputs the call could see.
 */
function fromOutputs(g: GroundedValue, outputs: readonly unknown[], userTexts: readonly string[]): { determined: boolean; fromList: boolean } {
  const base = g.class === 'path' && typeof g.value === 'string' ? baseName(g.value) : undefined;
  // The user naming the value (a path's file name) picks the item by itself.
  if (base && userTexts.some((t) => foundInText(t, base, 'name', true))) return { determined: true, fromList: false };
  let places = outputs.flatMap((o) => occurrences(o, g.value, g.class));
  if (!places.length && base) places = outputs.flatMap((o) => occurrences(o, base, 'token'));
  if (!places.length) return { determined: true, fromList: false };
  let fromList = false;
  for (const place of places) {
    const open = place.lists.filter((l) => !everyItemHolds(l.items, g.value, g.class) && !(base && everyItemHolds(l.items, base, 'token')));
    if (open.length) fromList = true;
    if (open.every((l) => identified(l.items, l.index, userTexts))) return { determined: true, fromList: open.length > 0 };
  }
  return { determined: false, fromList };
}

/** The object an output is about: the root object, or the one object a single-key wrapper holds (`{result: {...}}`, JSON text too). */
function subjectOf(output: unknown): Record<string, unknown> | undefined {
  let o: unknown = typeof output === 'string' ? jsonDocument(output) : output;
  for (let depth = 0; depth < 3 && isRecord(o); depth++) {
    const entries = Object.entries(o);
    const only = entries.length === 1 ? entries[0]?.[1] : undefined;
    const inner = typeof only === 'string' ? jsonDocument(only) : only;
    if (isRecord(inner)) o = inner;
    else break;
  }
  return isRecord(o) ? o : undefined;
}

/** Identifier values of an output under ID-named fields (to depth 4). */
function outputIds(output: unknown): (string | number)[] {
  const out: (string | number)[] = [];
  const walk = (v: unknown, key: string, depth: number): void => {
    if (depth > 4) return;
    if (typeof v === 'string') {
      const doc = jsonDocument(v);
      if (doc !== undefined) walk(doc, key, depth + 1);
      else if (key && isIdName(key) && v.trim()) out.push(v);
    } else if (typeof v === 'number') {
      if (key && isIdName(key)) out.push(v);
    } else if (Array.isArray(v)) for (const x of v) walk(x, key, depth + 1);
    else if (isRecord(v)) for (const [k, x] of Object.entries(v)) walk(x, k, depth + 1);
  };
  walk(output, '', 0);
  return out;
}

/** Fields that are an object's own identifier whatever the entity. */
export const BARE_IDS: ReadonlySet<string> = new Set(['id', 'sid', 'uid', 'uuid', 'guid']);

/** Verbs of calls that make a new thing (its own id is new, whatever it was given). */
const MAKE_VERBS = new Set(['create', 'add', 'new', 'post', 'insert', 'make', 'fork', 'copy', 'duplicate', 'clone', 'upload', 'send', 'generate']);

const LIST_VERBS = new Set(['list', 'search', 'query', 'find', 'browse', 'scan']);
const squash = (k: string): string => k.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Whether a top-level parameter is the identifier of the thing the call is about: a bare `id`
 * (`sid`, `uuid`) of a call that does not list, or `<noun>Id` where the noun is the last word of
 * the tool's name (`get_engagement(engagementId)`, `get_issue(issue_number)` is not an ID name).
 */
export function isOwnIdParam(toolName: string, param: string): boolean {
  if (!isIdName(param)) return false;
  const words = nameWords(param);
  const toolWords = nameWords(toolName);
  if (words.length === 1) return !toolWords.some((w) => LIST_VERBS.has(w));
  const noun = words.slice(0, -1).map(singular).join(' ');
  const last = singular(toolWords[toolWords.length - 1] ?? '');
  return noun === last || noun.endsWith(` ${last}`);
}

/** Findings of outputs that contradict their own call (see the module doc). */
function outputFindings(input: GroundingInput): DeterminacyFinding[] {
  const out: DeterminacyFinding[] = [];
  input.calls.forEach((call, callIndex) => {
    const output = input.outputs[callIndex];
    if (output === undefined || output === null || !isRecord(call.arguments)) return;
    const subject = subjectOf(output);
    for (const [param, value] of Object.entries(call.arguments)) {
      if ((typeof value !== 'string' && typeof value !== 'number') || (typeof value === 'string' && !value.trim())) continue;
      const cls = valueClass(param, value);
      if (isOwnIdParam(call.name, param) && cls === 'id') {
        const ids = outputIds(output);
        if (ids.length && occurrences(output, value, cls).length === 0) {
          const shown = ids.slice(0, 3).map((v) => JSON.stringify(v));
          out.push({
            callIndex,
            param,
            value,
            kind: 'read-mismatch',
            message: `'${call.name}' is asked about ${param} ${JSON.stringify(value)}, but its output is about ${shown.join(', ')}${ids.length > 3 ? '…' : ''} and never mentions ${JSON.stringify(value)}`,
          });
          continue;
        }
        // The answered object's own identifier is another one: "get page X" answering with page Y's id.
        // Only for an identifier proper (`page_id`, not a `path` or a `ref`), of a call that does not make a new thing.
        const identifier = BARE_IDS.has(nameWords(param).pop() ?? '') && !nameWords(call.name).some((w) => MAKE_VERBS.has(w));
        const own = subject && identifier ? Object.keys(subject).find((k) => BARE_IDS.has(k.toLowerCase())) : undefined;
        const its = own === undefined ? undefined : subject?.[own];
        if (its !== undefined && typeof its === typeof value && its !== value) {
          out.push({
            callIndex,
            param,
            value,
            kind: 'read-mismatch',
            message: `'${call.name}' is asked about ${param} ${JSON.stringify(value)}, but the object it answers with has ${own} ${JSON.stringify(its)}`,
          });
          continue;
        }
      }
      if (!subject || !['id', 'name', 'path'].includes(cls)) continue;
      const key = Object.keys(subject).find((k) => squash(k) === squash(param));
      const shown = key === undefined ? undefined : subject[key];
      if ((typeof shown === 'string' || typeof shown === 'number') && typeof shown === typeof value && shown !== value) {
        out.push({
          callIndex,
          param,
          value,
          kind: 'output-contradicts-call',
          message: `'${call.name}' is called with ${param} ${JSON.stringify(value)}, but its output says ${key} ${JSON.stringify(shown)}`,
        });
      }
    }
  });
  return out;
}

/** Last words of a number parameter that names a thing rather than counting (`issue_number`, `port`, `line`): said once, it serves every call. */
const NUMBERED = new Set(['number', 'num', 'no', 'index', 'idx', 'line', 'port', 'year', 'version', 'pr', 'issue']);

/** How many times the user's texts state a number (digits, or the words zero to twenty). */
function timesStated(texts: readonly string[], value: string | number): number {
  const n = Number(value);
  return texts.reduce((sum, t) => sum + numbersIn(t, true).filter((x) => x === n).length, 0);
}

/** The determinacy of a workflow (see the module doc). `grounding` is `groundWorkflow(input)` when the caller has it. */
export function checkDeterminacy(input: GroundingInput, grounding: readonly GroundedValue[] = groundWorkflow(input)): DeterminacyResult {
  const result: DeterminacyResult = { checked: 0, determined: 0, fromLists: 0, identified: 0, findings: [] };
  const turnOf = new Map<number, number>();
  input.turns.forEach((t, ti) => t.calls.forEach((c) => turnOf.has(c) || turnOf.set(c, ti)));
  // Outputs become visible in turn order; calls in no turn come after, in index order (as grounding reads them).
  const order = [...input.turns.flatMap((t) => t.calls), ...input.calls.map((_, i) => i)].filter((c, i, all) => all.indexOf(c) === i && c < input.calls.length);
  const position = new Map(order.map((c, i) => [c, i] as const));
  const uses = new Map<string, number>();
  const byPosition = [...grounding].sort((a, b) => (position.get(a.callIndex) ?? 0) - (position.get(b.callIndex) ?? 0));
  for (const g of byPosition) {
    if (g.source.kind === 'none' || g.source.kind === 'schema') continue;
    result.checked++;
    const ti = turnOf.get(g.callIndex) ?? 0;
    const userTexts = input.turns.slice(0, ti + 1).map((t) => t.prompt);
    if (g.source.kind === 'user') {
      if (
        typeof g.value === 'number' &&
        (g.class === 'setting' || g.class === 'amount') &&
        !NUMBERED.has(
          nameWords(
            g.param
              .split('.')
              .filter((x) => !/^\d+$/.test(x))
              .pop() ?? '',
          ).pop() ?? '',
        )
      ) {
        const call = input.calls[g.callIndex];
        const tool = call && input.spec ? findTool(input.spec, call.name) : undefined;
        // A value the parameter's own schema offers (its default) needs no words, and uses none.
        const offered = tool ? schemaKeyword(tool.inputSchema ?? {}, g.param, g.value) !== undefined : false;
        const key = String(Number(g.value));
        const used = (uses.get(key) ?? 0) + (offered ? 0 : 1);
        uses.set(key, used);
        const said = timesStated(userTexts, g.value);
        if (used > said && !offered) {
          result.findings.push({
            callIndex: g.callIndex,
            param: g.param,
            value: g.value,
            kind: 'reused-statement',
            message: `${g.param} ${JSON.stringify(g.value)}: the user says ${JSON.stringify(g.value)} ${said === 1 ? 'once' : `${said} times`}, for ${said === 1 ? 'another call' : 'other calls'}; nothing asks for it here`,
          });
          continue;
        }
      }
      result.determined++;
      continue;
    }
    const pos = position.get(g.callIndex) ?? 0;
    const visible = order.slice(0, pos).map((c) => input.outputs[c]);
    const d = fromOutputs(g, visible, userTexts);
    if (d.fromList) result.fromLists++;
    if (d.determined) {
      result.determined++;
      if (d.fromList) result.identified++;
      continue;
    }
    result.findings.push({
      callIndex: g.callIndex,
      param: g.param,
      value: g.value,
      kind: 'item-not-identified',
      message: `${g.param} ${JSON.stringify(g.value)} is one item of a list of several in call ${g.source.call}'s output, and nothing the user says picks that item (state a name or another field of it, or list one item)`,
    });
  }
  result.findings.push(...outputFindings(input));
  result.findings.sort((a, b) => a.callIndex - b.callIndex);
  return result;
}

/** Determinacy of a value set as a share (1 when nothing needed determining). */
export function determinacyRate(r: Pick<DeterminacyResult, 'checked' | 'determined'>): number {
  return r.checked === 0 ? 1 : r.determined / r.checked;
}
