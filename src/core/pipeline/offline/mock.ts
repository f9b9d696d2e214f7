/**
 * Stage 3, offline: a mock output per call.
 *
 * - Tools with an `outputSchema` get a sample of it, validated against it.
 * - Tools without one borrow the schema of a tool with the same entity and verb when there is
 *   one, else get a shape for their verb: listings are `{<things>: [items with ids],
 *   total_count}`, reads an object, creates an object with a new id, deletes
 *   `{deleted: true, id}`, other actions `{success, message}`. Outputs echo the call's
 *   identifying arguments, as real APIs do.
 * - Grounding is `low` throughout: the paper's Table 9 tiers count example outputs (this tool's:
 *   high, a similar tool's: medium), and the offline generator has none; a schema is not an
 *   example (the record says whether the tool has one in `outputSchema`).
 * - Then referential integrity is enforced: every argument a later call takes from an earlier
 *   one (see `chainSources`) is planted into that earlier output (an item's `id`/`sid`/`name`,
 *   a new field, or a line of a text field), re-validating against the outputSchema; any other
 *   ID-like value that neither the prompt nor an earlier output contains is planted into the
 *   nearest earlier output that can hold it. This also repairs LLM-written workflows fed to it.
 */
import type { Grounding } from '../../harness/format';
import type { Spec } from '../../spec/model';
import { appearsIn, containsToken, idLikeReason, idLikeValues, isIdName, nameWords, schemaLiterals, singular, textLeaves } from '../../checks/integrity';
import type { MockCall, MockResult, Scenario } from '../schemas';
import { validateOutput } from '../../checks/validateCall';
import { canHost, chainSources } from './chain';
import { fakerFor, hash32, rngFor } from './rng';
import { SampleLimitError, sampleSchema, setKey, type SampleContext } from './sampler';
import { analysisOf, outputContext, takesFolder } from './scenarios';
import { reportCall } from './text';
import { plural, type SpecAnalysis, type ToolInfo } from './toolInfo';
import { makeTheme, realisticString, title as makeTitle, type Theme } from './values';
import { isRecord } from '../../util/isRecord';
import { FILE_HEADS, LISTED_FILE, LISTED_FOLDERS, listedFolder, listingEntries, listingKind, splitPath, withEntry } from './listing';
import { containsWords, groundWorkflow } from '../../checks/grounding';
import { BARE_IDS, BULLET, checkDeterminacy, isOwnIdParam } from '../../checks/determinacy';
import { pickNames, pickOf } from './picks';

const snake = (s: string): string => nameWords(s).join('_');

/** Last words of a parameter whose value a call's own output echoes (`page_id`, `name`, `filePath`). */
const OWN_ID = new Set(['id', 'sid', 'uid', 'uuid', 'name', 'path', 'slug', 'key']);

const takesSid = (t: ToolInfo): boolean => t.params.some((p) => p.name === 'Sid' || p.name === 'sid');

/** Per analysis, whether some tool of an entity takes a `Sid` (asked once per entity, not once per call). */
const sidHeads = new WeakMap<SpecAnalysis, Map<string, boolean>>();

/** The key an entity's identifier goes under in outputs of tools of that entity. */
function idKeyFor(info: ToolInfo, analysis: SpecAnalysis): string {
  if (takesSid(info)) return 'sid';
  if (info.head === '') return 'id';
  let heads = sidHeads.get(analysis);
  if (!heads) sidHeads.set(analysis, (heads = new Map()));
  let sid = heads.get(info.head);
  if (sid === undefined) heads.set(info.head, (sid = (analysis.byHead.get(info.head) ?? []).some(takesSid)));
  return sid ? 'sid' : 'id';
}

function entityItem(info: ToolInfo, ctx: SampleContext, n: number, idKey: string): Record<string, unknown> {
  const idValue = realisticString(
    { name: idKey === 'sid' ? 'Sid' : `${info.head || 'item'}_id`, description: '', toolEntity: info.head || undefined },
    ctx.faker,
    ctx.rng,
    ctx.theme,
  );
  // An entity named like text ("comment error") would get a sentence for an id: ids have no spaces.
  const id = /\s/.test(idValue ?? ' ')
    ? realisticString({ name: 'item_id', description: '', toolEntity: info.head || undefined }, ctx.faker, ctx.rng, ctx.theme)
    : idValue;
  const name = realisticString({ name: 'name', description: '', toolEntity: info.head || undefined }, ctx.faker, ctx.rng, ctx.theme);
  return {
    [idKey]: id,
    name: n === 0 ? name : `${name}-${n + 1}`,
    status: ctx.rng.pick(['active', 'completed', 'pending', 'open']),
    created_at: ctx.faker.date
      .between({ from: '2026-01-01T00:00:00Z', to: '2026-05-31T00:00:00Z' })
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z'),
  };
}

/** Listed things whose entries have the fields of their kind (`collectionEntry`), not an id and a name. */
const KINDED = new Set(['message', 'reply', 'comment', 'commit']);

/** What a collection read lists: `channel history` → message, `commit log` → commit, `block children` → child; undefined for one thing. */
function collectionItem(info: ToolInfo): string | undefined {
  const words = info.label.split(' ');
  const last = words[words.length - 1] ?? '';
  const before = words[words.length - 2];
  if (last === 'history' || last === 'feed' || last === 'timeline') return 'message';
  if (last === 'log' || last === 'logs') return before === 'commit' ? 'commit' : 'entry';
  if (last === 'children') return 'child';
  if (/[^s]s$/.test(last) && !/(ss|us|is|ics|status|details|settings|contents|news)$/.test(last)) return singular(last);
  return undefined;
}

/** One listed entry of a collection, with the fields its kind has (a message has a ts, a user and a text). */
function collectionEntry(noun: string, info: ToolInfo, ctx: SampleContext, n: number, idKey: string): Record<string, unknown> {
  const when = ctx.faker.date.between({ from: '2026-01-01T00:00:00Z', to: '2026-05-31T00:00:00Z' });
  const title = makeTitle(ctx.rng, ctx.theme, noun);
  switch (noun) {
    case 'message':
      return {
        ts: `${Math.floor(when.getTime() / 1000)}.${String(ctx.rng.int(0, 999999)).padStart(6, '0')}`,
        user: `U${String(ctx.rng.int(10000000, 99999999))}`,
        text: title,
      };
    case 'commit':
      return {
        sha: realisticString({ name: 'sha', description: 'commit', toolEntity: 'commit' }, ctx.faker, ctx.rng, ctx.theme),
        author: ctx.theme.person,
        message: title,
        date: when.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      };
    case 'entry':
      return { timestamp: when.toISOString().replace(/\.\d{3}Z$/, 'Z'), message: title };
    default:
      return entityItem({ ...info, head: noun }, ctx, n, idKey);
  }
}

/** Scalar arguments worth echoing in an output (identifiers and short strings). */
function echo(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if ((typeof v === 'string' && v.length <= 120) || typeof v === 'number') setKey(out, snake(k) || k, v);
  }
  return out;
}

/** A plausible output for a tool that declares none, shaped by its verb. */
function verbShape(info: ToolInfo | undefined, args: Record<string, unknown>, ctx: SampleContext, idKey: string): Record<string, unknown> {
  if (!info) return { error: 'unknown tool' };
  switch (info.verbClass) {
    case 'discover': {
      const n = ctx.rng.int(2, 3);
      // Messages, replies and commits have the fields their kind has; other things an id and a name.
      const kind = KINDED.has(info.head) ? (info.head === 'commit' ? 'commit' : 'message') : undefined;
      const items = Array.from({ length: n }, (_, i) => (kind ? collectionEntry(kind, info, ctx, i, idKey) : entityItem(info, ctx, i, idKey)));
      return { [snake(plural(info.label || 'item')) || 'items']: items, total_count: n };
    }
    case 'read': {
      // A history, a log or a plural label is a list of its items, not one object.
      const noun = collectionItem(info);
      if (noun) {
        const n = ctx.rng.int(2, 3);
        return { ...echo(args), [snake(plural(noun))]: Array.from({ length: n }, (_, i) => collectionEntry(noun, info, ctx, i, idKey)) };
      }
      return {
        ...entityItem(info, ctx, 0, idKey),
        ...echo(args),
        description: makeTitle(ctx.rng, ctx.theme, info.head || undefined),
        updated_at: '2026-05-30T16:20:00Z',
      };
    }
    case 'create': {
      // What it was given (a name asked for is the name it has), plus the new identifier.
      const made = entityItem(info, ctx, 0, idKey);
      return { ...made, ...echo(args), [idKey]: made[idKey], status: 'created' };
    }
    case 'update':
      return { ...entityItem(info, ctx, 0, idKey), ...echo(args), status: 'updated', updated_at: '2026-06-01T09:05:00Z' };
    case 'delete':
      return { deleted: true, ...echo(args) };
    default:
      return { success: true, message: `${info.words.join(' ') || info.name} completed`, ...echo(args) };
  }
}

/**
 * FastMCP wraps plain return values as `{result: string}`; a sampled string there says nothing.
 * Reads get a small JSON document about the entity, other calls a status line with the inputs.
 */
function wrapperResult(info: ToolInfo, output: unknown, args: Record<string, unknown>, theme: Theme): unknown {
  if (!isRecord(output) || typeof output.result !== 'string' || Object.keys(output).length > 2) return output;
  const schema = isRecord(info.tool.outputSchema) ? info.tool.outputSchema : {};
  const rs = isRecord(schema.properties) && isRecord(schema.properties.result) ? schema.properties.result : {};
  if (rs.enum !== undefined || rs.format !== undefined || rs.pattern !== undefined || rs.const !== undefined) return output;
  const inputs = Object.entries(args).filter(([, v]) => typeof v === 'string' || typeof v === 'number');
  const text =
    info.phase === 'read'
      ? JSON.stringify({ ...Object.fromEntries(inputs.slice(0, 3)), [info.head || 'value']: `${theme.topic}-${info.head || 'value'}`, status: 'ok' })
      : `Success: ${info.label || info.name} ${info.verbClass === 'delete' ? 'removed' : info.verbClass === 'create' ? 'added' : 'updated'}${
          inputs.length
            ? ` (${inputs
                .slice(0, 3)
                .map(([k, v]) => `${k}=${String(v)}`)
                .join(', ')})`
            : ''
        }`;
  return { ...output, result: text };
}

/**
 * Text outputs of file tools (`{content: "…"}`): listings look like `[DIR] src` / `[FILE]
 * notes.md` lines, reads like file text; a sampled sentence would look like neither. What a
 * listing shows is `listing.ts`'s, which the scenario stage reads too.
 */
function fileText(info: ToolInfo, output: unknown, args: Record<string, unknown>, theme: Theme): unknown {
  if (!FILE_HEADS.has(info.head) || !isRecord(output) || typeof output.content !== 'string') return output;
  const base = listedFolder(args) ?? theme.baseDir;
  const kind = listingKind(info);
  let content: string;
  if (kind === 'listing' || kind === 'search') {
    const entries = listingEntries(theme.topic);
    content =
      kind === 'search'
        ? entries
            .filter((e) => e.includes('.'))
            .map((e) => `${base}/${e}`)
            .join('\n')
        : entries.map((e) => `${e.includes('.') ? '[FILE]' : '[DIR]'} ${e}`).join('\n');
  } else if (kind === 'tree') {
    // A tree of a folder is its entries, not a file's text.
    content = JSON.stringify([
      { name: LISTED_FOLDERS[0], type: 'directory', children: [{ name: `${theme.topic}-notes.md`, type: 'file' }] },
      { name: LISTED_FILE, type: 'file' },
    ]);
  } else if (info.phase === 'read') {
    content = `# ${theme.topic} notes\n\nOwner: ${theme.person}\nStatus: in review\n`;
  } else {
    content = `Successfully ${info.verbClass === 'delete' ? 'removed' : 'wrote'} ${typeof args.path === 'string' ? args.path : 'the file'}`;
  }
  return { ...output, content };
}

/** Base output of one call, and whether it was sampled from an output schema (its own or a similar tool's). */
function baseOutput(
  spec: Spec,
  info: ToolInfo | undefined,
  args: Record<string, unknown>,
  seed: number,
  key: string,
  index: number,
  theme: Theme,
): { output: unknown; grounding: Grounding; sampled: boolean } {
  if (info?.hasOutputSchema) {
    const schema = info.tool.outputSchema;
    let last: unknown;
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        last = sampleSchema(schema, outputContext(seed, info, key, index, theme, schema, attempt), '', 0);
      } catch (e) {
        // `callability` skips tools whose output schema requires too much; optional parts that
        // happen to be too big here are retried, then the output is left to the validity check.
        if (!(e instanceof SampleLimitError)) throw e;
        last = undefined;
        continue;
      }
      if (validateOutput(info.tool, last)?.ok !== false) break;
    }
    return { output: fileText(info, wrapperResult(info, last, args, theme), args, theme), grounding: 'low', sampled: true };
  }
  const analysis = analysisOf(spec);
  const sibling = info
    ? info.head
      ? (analysis.byHead.get(info.head) ?? []).find((t) => t !== info && t.hasOutputSchema && t.verbClass === info.verbClass)
      : undefined
    : undefined;
  if (sibling) {
    const schema = sibling.tool.outputSchema;
    return { output: sampleSchema(schema, outputContext(seed, info, key, index, theme, schema, 0), '', 0), grounding: 'low', sampled: true };
  }
  const idKey = info ? idKeyFor(info, analysis) : 'id';
  return { output: verbShape(info, args, outputContext(seed, info, key, index, theme, {}, 0), idKey), grounding: 'low', sampled: false };
}

/**
 * Keys a planted value may go under, best first: the consumer's own parameter name (as the
 * producer would spell it when it echoes it), the identifier word it ends with (`id`, `sid`,
 * `name`, `path`…; `entityNames` → `name`), and `name` for entity-named parameters (`repo`).
 */
function plantKeys(param: string, producer: ToolInfo | undefined, analysis: SpecAnalysis): string[] {
  const words = nameWords(param);
  const last = singular(words[words.length - 1] ?? param);
  const entity = words.slice(0, -1).map(singular).join(' ');
  const keys = [param, snake(param)];
  const idWords = ['id', 'sid', 'uid', 'uuid', 'key', 'path', 'name', 'number', 'slug', 'ref', 'sha'];
  if (idWords.includes(last)) {
    const sameEntity = words.length === 1 || (producer !== undefined && (entity === producer.head || producer.entity.join(' ').endsWith(entity)));
    if (sameEntity) keys.unshift(last === 'id' && producer && idKeyFor(producer, analysis) === 'sid' ? 'sid' : last);
    else keys.push(last);
  } else keys.push('name');
  return [...new Set(keys)];
}

const squashKey = (k: string): string => k.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Paths to string leaves and to arrays, depth-first. */
function findSlots(value: unknown): {
  objectArrays: unknown[][];
  stringLeaves: { holder: Record<string, unknown> | unknown[]; key: string | number }[];
  stringArrays: unknown[][];
} {
  const objectArrays: unknown[][] = [];
  const stringLeaves: { holder: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const stringArrays: unknown[][] = [];
  const visit = (v: unknown, depth: number): void => {
    if (depth > 8) return;
    if (Array.isArray(v)) {
      if (v.length && v.every(isRecord)) objectArrays.push(v);
      if (v.every((x) => typeof x === 'string')) stringArrays.push(v);
      v.forEach((x, i) => {
        if (typeof x === 'string') stringLeaves.push({ holder: v, key: i });
        else visit(x, depth + 1);
      });
    } else if (isRecord(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === 'string') stringLeaves.push({ holder: v, key: k });
        else visit(x, depth + 1);
      }
    }
  };
  visit(value, 0);
  return { objectArrays, stringLeaves, stringArrays };
}

/** Objects of a value, shallow first (root, then items of its arrays, then deeper). */
function objectsOf(value: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let level: unknown[] = [value];
  for (let depth = 0; depth < 6 && level.length; depth++) {
    const next: unknown[] = [];
    for (const v of level) {
      if (isRecord(v)) {
        out.push(v);
        next.push(...Object.values(v));
      } else if (Array.isArray(v)) next.push(...v);
    }
    level = next;
  }
  return out;
}

/**
 * Returns a copy of `output` that contains `value`, or undefined when no placement satisfies
 * `valid`. Placements, in order: replace a same-named field (any of `keys`) of a listed item or
 * of the output, add the first key to the first free listed item or to the root, append a
 * line or field to a prose or JSON text field (when `textOk`; never to an ID or a value field,
 * which would glue two values into one), append to a list of strings. A field already holding a
 * value in `keep` (planted for another call) is never overwritten.
 */
export function plantValue(
  output: unknown,
  keys: readonly string[],
  value: string | number,
  valid: (o: unknown) => boolean,
  keep: ReadonlySet<string> = new Set(),
  textOk = true,
): unknown {
  const squashed = keys.map(squashKey);
  const free = (o: Record<string, unknown>, k: string): boolean => !Object.hasOwn(o, k) || !keep.has(String(o[k]));
  const firstKey = keys[0] ?? 'id';
  const intoText = (o: unknown): boolean => {
    if (!textOk) return false;
    // Only a text that can take the value as an entry of its own: appending to an ID or a short
    // value (`"id": "abc123\ndef456"`) would glue two values into one field.
    const leaf = findSlots(o).stringLeaves.find((l) => hostsText(l.key, (l.holder as Record<string | number, unknown>)[l.key] as string));
    if (!leaf) return false;
    const holder = leaf.holder as Record<string | number, unknown>;
    const cur = holder[leaf.key] as string;
    holder[leaf.key] = appendToText(cur, firstKey, value, keep);
    return true;
  };
  const attempts: ((o: unknown) => boolean)[] = [
    (o) => {
      // A same-named field (listed items first, as the first item is "the one found").
      const objs = objectsOf(o);
      const items = findSlots(o).objectArrays.flat().filter(isRecord);
      for (const sk of squashed) {
        for (const obj of [...items, ...objs]) {
          const k = Object.keys(obj).find((x) => squashKey(x) === sk);
          if (k !== undefined && typeof obj[k] === typeof value && free(obj, k)) {
            setKey(obj, k, value);
            return true;
          }
        }
      }
      return false;
    },
    (o) => {
      const arr = findSlots(o).objectArrays[0];
      const item = arr?.find((x) => isRecord(x) && free(x, firstKey));
      if (!isRecord(item)) return false;
      setKey(item, firstKey, value);
      return true;
    },
    (o) => {
      if (!isRecord(o) || !free(o, firstKey)) return false;
      setKey(o, firstKey, value);
      return true;
    },
    intoText,
    (o) => {
      const arr = findSlots(o).stringArrays[0];
      if (!arr || typeof value !== 'string') return false;
      arr.push(value);
      return true;
    },
  ];
  // A wrapped plain value (`{result: "…"}`) carries data in its text, not in new fields.
  const wrapper = isRecord(output) && Object.keys(output).length <= 2 && (typeof output.result === 'string' || typeof output.content === 'string');
  if (wrapper) attempts.splice(1, 0, intoText);
  for (const place of attempts) {
    const copy = structuredClone(output);
    if (place(copy) && valid(copy)) return copy;
  }
  return undefined;
}

const PROSE_KEY = /content|text|result|output|message|body|description|summary|log/i;

/**
 * Whether a text field can take a planted value as an entry of its own: a JSON object in a
 * string (the value becomes a field; never a JSON array), a `[FILE]`/`[DIR]` listing (a new entry), or prose under a
 * prose-named key (a new line). Never an ID-like text or a value field such as a name or status.
 */
function hostsText(key: string | number, text: string): boolean {
  if (/^\s*[{[]/.test(text)) {
    try {
      // A JSON object takes a field; a JSON array (a tree's entries) takes nothing: a line after it is no JSON.
      return isRecord(JSON.parse(text));
    } catch {
      // not JSON: judged as text below
    }
  }
  if (/^\[(FILE|DIR)\] /m.test(text)) return true;
  return typeof key === 'string' && PROSE_KEY.test(key) && idLikeReason(key, text) === undefined && !isIdName(key);
}

/**
 * Adds a value to a text output: as a field when the text is a JSON object (its same-named field
 * unless that holds a value in `keep`, planted for another call), as a listing entry
 * when it is a `[FILE]`/`[DIR]` listing, else as a new line.
 */
function appendToText(text: string, key: string, value: string | number, keep: ReadonlySet<string>): string {
  if (!text) return String(value);
  try {
    const doc: unknown = JSON.parse(text);
    if (isRecord(doc)) {
      // The same-named field is the value asked for (`hget` → `{"value": …}`), unless it holds one planted for another call.
      const k = Object.hasOwn(doc, key) && keep.has(String(doc[key])) ? `${key}_2` : key;
      setKey(doc, k, value);
      return JSON.stringify(doc);
    }
  } catch {
    // not JSON: plain text
  }
  if (/^\[(FILE|DIR)\] /m.test(text)) return `${text}\n[FILE] ${value}`;
  return `${text}\n${value}`;
}

/** Whether `value` already sits in `output` as a leaf under one of `keys`. */
function presentUnderKey(output: unknown, keys: readonly string[], value: string | number): boolean {
  const squashed = keys.map(squashKey);
  return objectsOf(output).some((o) => Object.entries(o).some(([k, v]) => squashed.includes(squashKey(k)) && v === value));
}

/**
 * Makes a schema-sampled output agree with the call: an output field named like an argument
 * (`database`, `indexName` ← `name` is not matched; exact names only) takes the argument's
 * value when the types agree and the output stays valid. A created index reports the database
 * it was created in.
 */
function echoArguments(output: unknown, args: Record<string, unknown>, valid: (o: unknown) => boolean): unknown {
  let current = output;
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
    const copy = structuredClone(current);
    const target = objectsOf(copy).find((o) => Object.keys(o).some((x) => squashKey(x) === squashKey(k) && typeof o[x] === typeof v));
    if (!target) continue;
    const field = Object.keys(target).find((x) => squashKey(x) === squashKey(k)) as string;
    setKey(target, field, v);
    if (valid(copy)) current = copy;
  }
  return current;
}

/** Flags by which an output reports success (`true`) or failure (`isError: true`). */
const SUCCESS_FLAGS = /^(success|succeeded|ok|successful)$/i;
const ERROR_FLAGS = /^(is_?error|failed|has_?errors?)$/i;

/**
 * A copy of an output that reports success wherever it carries a success or error flag (kept
 * only while the output stays valid): sampled booleans said `success: false` above a "Done".
 */
function succeeded(output: unknown, valid: (o: unknown) => boolean): unknown {
  const copy = structuredClone(output);
  for (const o of objectsOf(copy)) {
    for (const [k, v] of Object.entries(o)) {
      if (typeof v !== 'boolean') continue;
      if (SUCCESS_FLAGS.test(k)) setKey(o, k, true);
      else if (ERROR_FLAGS.test(k)) setKey(o, k, false);
    }
  }
  return valid(copy) ? copy : output;
}

/** Keys an item's name goes under, best first (an existing one of these is renamed, else `name` is added). */
const NAME_KEYS = ['name', 'title', 'display_name', 'displayName', 'real_name', 'full_name', 'label', 'username', 'login'];

/** The item (an object of a list of two or more) holding `value`, in a copy of the output; undefined when none does. */
function itemHolding(copy: unknown, value: string | number): Record<string, unknown> | undefined {
  for (const list of findSlots(copy).objectArrays) {
    if (list.length < 2) continue;
    const item = list.find((x) => isRecord(x) && textLeaves(x).includes(String(value)));
    if (isRecord(item)) return item;
  }
  return undefined;
}

/**
 * A copy of an output whose listed item holding `value` is called `name` (its name field renamed,
 * or one added), so the user's words pick it; undefined when no listed item holds the value. No
 * other item keeps that name.
 */
function nameItem(output: unknown, value: string | number, name: string, keep: ReadonlySet<string>): unknown {
  const copy = structuredClone(output);
  const item = itemHolding(copy, value);
  if (!item) return undefined;
  // A name field holding the chained value, or one planted for another call, is that value's home:
  // the name goes under the next name key instead (an object keeps its `name` and gets a `title`).
  const home = (k: string): boolean => item[k] === value || keep.has(String(item[k]));
  const key = NAME_KEYS.find((k) => typeof item[k] === 'string' && !home(k)) ?? NAME_KEYS.find((k) => !Object.hasOwn(item, k));
  if (key === undefined) return undefined;
  setKey(item, key, name);
  for (const list of findSlots(copy).objectArrays) {
    for (const other of list) if (isRecord(other) && other !== item && other[key] === name) setKey(other, key, `${name}-old`);
    // Not always first: an agent that takes the first row without reading it must not pass.
    const at = list.indexOf(item);
    if (at >= 0) {
      list.splice(at, 1);
      list.splice(hash32(name) % (list.length + 1), 0, item);
    }
  }
  return copy;
}

/**
 * A copy of an output in which the first list of two or more entries that holds `value` shows
 * only that entry (its count fields, equal to the old length, say 1), or undefined when no list
 * holds it or another entry holds a value in `keep` (planted for another call). Lists are JSON arrays (also inside a JSON text) and bulleted text lines.
 */
function cutToItem(output: unknown, value: string | number, keep: ReadonlySet<string>): unknown {
  const needle = String(value);
  const base = needle.replace(/\/+$/, '').split('/').pop() ?? needle;
  const holds = (x: unknown): boolean => textLeaves(x).some((t) => containsToken(t, needle) || (base !== needle && containsToken(t, base)));
  // An entry holding a value planted for another call is that call's source: it stays.
  const needed = (x: unknown): boolean => textLeaves(x).some((t) => keep.has(t) && t !== needle);
  let done = false;
  const visit = (v: unknown): unknown => {
    if (done) return v;
    if (Array.isArray(v)) {
      const at = v.length >= 2 ? v.findIndex(holds) : -1;
      if (at >= 0 && !v.some((x, i) => i !== at && needed(x))) {
        done = true;
        return [v[at]];
      }
      return v.map(visit);
    }
    if (typeof v === 'string') {
      if (/^\s*[[{]/.test(v)) {
        try {
          const doc: unknown = JSON.parse(v);
          const next = visit(doc);
          return done ? JSON.stringify(next) : v;
        } catch {
          return v;
        }
      }
      const lines = v.split('\n');
      const bullets = lines.filter((l) => BULLET.test(l));
      const hit = bullets.find((l) => containsToken(l, needle) || containsToken(l, base));
      if (bullets.length >= 2 && hit !== undefined && !bullets.some((l) => l !== hit && needed(l))) {
        done = true;
        return lines.filter((l) => !bullets.includes(l) || l === hit).join('\n');
      }
      return v;
    }
    if (isRecord(v)) {
      const out: Record<string, unknown> = {};
      let cutLength: number | undefined;
      for (const [k, x] of Object.entries(v)) {
        const before = done;
        setKey(out, k, visit(x));
        if (!before && done && Array.isArray(x)) cutLength = x.length;
      }
      if (cutLength !== undefined)
        for (const [k, x] of Object.entries(out)) if (/^(total_?count|count|total|size|num_?results)$/i.test(k) && x === cutLength) setKey(out, k, 1);
      return out;
    }
    return v;
  };
  const next = visit(output);
  return done ? next : undefined;
}

/** The arguments of a call that are its own identifiers (`isOwnIdParam`), with their values. */
function ownIds(toolName: string, args: Record<string, unknown>): [string, string | number][] {
  return Object.entries(args).filter(
    (e): e is [string, string | number] => (typeof e[1] === 'string' || typeof e[1] === 'number') && isOwnIdParam(toolName, e[0]),
  );
}

/** A copy of an object output and, inside it, the object it answers with: the root, or the one object a wrapper holds. */
function answered(output: unknown): { root: Record<string, unknown>; subject: Record<string, unknown> } | undefined {
  if (!isRecord(output)) return undefined;
  const root = structuredClone(output);
  let subject: Record<string, unknown> = root;
  for (let depth = 0; depth < 3; depth++) {
    const entries = Object.entries(subject);
    const only = entries.length === 1 ? entries[0]?.[1] : undefined;
    if (isRecord(only)) subject = only;
    else break;
  }
  return { root, subject };
}

/**
 * A copy of an output that is about the call's own identifier (`get_engagement(engagementId)`
 * answers with that engagement): each ID-named field of the answered object (the root, or the one
 * object a wrapper holds) that names the call's entity gets the argument's value, the way
 * `checks/determinacy.ts` reads "a call about X returns X". Undefined when nothing changes.
 */
function ownIdentity(output: unknown, toolName: string, args: Record<string, unknown>, keep: ReadonlySet<string>): unknown {
  const own = ownIds(toolName, args);
  const copy = own.length ? answered(output) : undefined;
  if (!copy) return undefined;
  const { subject } = copy;
  let changed = false;
  for (const [param, v] of own) {
    const keys = Object.keys(subject).filter((k) => squashKey(k) === squashKey(param) || BARE_IDS.has(k.toLowerCase()));
    for (const k of keys) {
      // A value planted for a later call stays: that call takes it from here.
      if (subject[k] === v || typeof subject[k] !== typeof v || keep.has(String(subject[k]))) continue;
      setKey(subject, k, v);
      changed = true;
    }
  }
  return changed ? copy.root : undefined;
}

/**
 * A copy of an output whose answered object takes the name fields of the listed item, in an
 * earlier output, that holds the call's own identifier (the item the user named); undefined when
 * nothing changes.
 */
function sameNames(output: unknown, toolName: string, args: Record<string, unknown>, earlier: readonly unknown[], keep: ReadonlySet<string>): unknown {
  const own = ownIds(toolName, args);
  const copy = own.length ? answered(output) : undefined;
  if (!copy) return undefined;
  const { subject } = copy;
  let changed = false;
  for (const [, v] of own) {
    const item = earlier
      .flatMap((o) => findSlots(o).objectArrays.flat())
      .find((x) => isRecord(x) && Object.entries(x).some(([k, y]) => y === v && isIdName(k)));
    if (!isRecord(item)) continue;
    for (const k of NAME_KEYS) {
      const name = item[k];
      if (typeof name !== 'string' || typeof subject[k] !== 'string' || subject[k] === name || keep.has(String(subject[k]))) continue;
      setKey(subject, k, name);
      changed = true;
    }
  }
  return changed ? copy.root : undefined;
}

/** Options of `mockOffline`. */
export interface MockOfflineOptions {
  seed: number;
}

/** Stage 3 offline: the workflow with a mock output per call, plus the expected response. */
export function mockOffline(spec: Spec, scenario: Scenario, options: MockOfflineOptions): MockResult {
  const analysis = analysisOf(spec);
  const calls = scenario.agent_workflow;
  const infos = calls.map((c) => analysis.byName.get(c.name));
  const key = `mock:${hash32(`${scenario.title}\u0000${scenario.prompt}`)}`;
  const theme = makeTheme(fakerFor(options.seed, key, 'theme'), rngFor(options.seed, key, 'theme'));
  const results = calls.map((c, i) => baseOutput(spec, infos[i], c.arguments, options.seed, key, i, theme));
  const validFor =
    (i: number) =>
    (o: unknown): boolean => {
      const info = infos[i];
      return !info || validateOutput(info.tool, o)?.ok !== false;
    };
  results.forEach((r, i) => {
    if (r.sampled) r.output = echoArguments(r.output, calls[i]?.arguments ?? {}, validFor(i));
  });
  const kept = new Set<string>();
  const plant = (i: number, param: string, v: string | number, textOk: boolean): boolean => {
    const r = results[i];
    if (!r) return false;
    // Nor is the echo of the producer's own arguments overwritten: its output still talks about what it was asked.
    const own = Object.values(calls[i]?.arguments ?? {}).filter((a) => typeof a === 'string' || typeof a === 'number');
    const planted = plantValue(r.output, plantKeys(param, infos[i], analysis), v, validFor(i), new Set([...kept, ...own.map(String)]), textOk);
    if (planted === undefined) return false;
    r.output = planted;
    kept.add(String(v));
    return true;
  };
  /** Plants a value as a new field of an object output's root (never over an existing one). */
  const plantAtRoot = (i: number, param: string, v: string | number): boolean => {
    const r = results[i];
    const key = snake(param) || param;
    if (!r || !isRecord(r.output) || Object.hasOwn(r.output, key)) return false;
    const copy = structuredClone(r.output);
    setKey(copy, key, v);
    if (!validFor(i)(copy)) return false;
    r.output = copy;
    kept.add(String(v));
    return true;
  };
  // An output talks about what it was asked about: the IDs, names and paths of its own call.
  calls.forEach((call, i) => {
    // A folder listing names its entries, never the folder it lists.
    if (infos[i] && FILE_HEADS.has(infos[i].head) && infos[i].verbClass === 'discover') return;
    const leaves = textLeaves(results[i]?.output);
    for (const [param, v] of Object.entries(call.arguments)) {
      if ((typeof v !== 'string' && typeof v !== 'number') || !OWN_ID.has(singular(nameWords(param).pop() ?? ''))) continue;
      if (appearsIn(v, leaves, [])) continue;
      // Under the parameter's own name: a `channel_id` echoed by a thread-replies listing is not the replies' `id`.
      const r = results[i];
      const words = nameWords(param);
      const own = words.length === 1 || words.slice(0, -1).map(singular).join(' ') === infos[i]?.head;
      const keys = own ? plantKeys(param, infos[i], analysis) : [param, snake(param)];
      const planted = r ? plantValue(r.output, [...new Set(keys)], v, validFor(i), kept, true) : undefined;
      if (r && planted !== undefined) {
        r.output = planted;
        kept.add(String(v));
      }
    }
  });

  /** Whether the exact judge finds every occurrence of `v` under `param` of call j in the prompt or an earlier output. */
  const judgeFinds = (j: number, param: string, v: string | number): boolean =>
    groundWorkflow({
      calls: calls.slice(0, j + 1),
      outputs: results.slice(0, j).map((r) => r.output),
      turns: [{ prompt: scenario.prompt, calls: calls.slice(0, j + 1).map((_, k) => k) }],
      spec,
    }).every((g) => g.callIndex !== j || g.value !== v || (g.param !== param && !g.param.startsWith(`${param}.`)) || g.source.kind !== 'none');
  /** Adds a path's last entry to the listing of call i when that call listed the path's folder. */
  const showEntry = (i: number, path: string, folder: boolean): void => {
    const r = results[i];
    const parts = splitPath(path);
    const call = calls[i];
    if (!r || !parts || !call || listingKind(infos[i]) !== 'listing' || listedFolder(call.arguments) !== parts.folder) return;
    if (!isRecord(r.output) || typeof r.output.content !== 'string') return;
    const shown = { ...r.output, content: withEntry(r.output.content, parts.entry, folder) };
    if (validFor(i)(shown)) r.output = shown;
  };
  const sources = chainSources(analysis, calls);
  calls.forEach((call, j) => {
    if (j === 0) return;
    const earlierTexts = (): string[] => results.slice(0, j).flatMap((r) => textLeaves(r.output));
    // Chained arguments go into their producer's output. Values the user already stated only
    // replace a matching field (no text appends): the output should agree, but needn't shout.
    for (const [param, i] of sources[j] ?? []) {
      const raw = call.arguments[param];
      for (const v of Array.isArray(raw) ? raw : [raw]) {
        if (typeof v !== 'string' && typeof v !== 'number') continue;
        // Planted unless the producer already lists it under a matching field (an equal number
        // elsewhere, like a count, is a coincidence, not the reference).
        if (presentUnderKey(results[i]?.output, plantKeys(param, infos[i], analysis), v)) continue;
        // A path into a listed folder is an entry of that listing (`[FILE] notes.md`), not a full path in it.
        if (typeof v === 'string') showEntry(i, v, infos[j] !== undefined && takesFolder(infos[j]));
        // Grounded as the judge says (`checks/grounding.ts`); the looser `appearsIn` also lets a stated path's prefix pass.
        const grounded = appearsIn(v, earlierTexts(), [scenario.prompt]) && judgeFinds(j, param, v);
        plant(i, param, v, !grounded);
      }
    }
    // Anything else ID-like and ungrounded goes into the nearest earlier output that takes it.
    const literals = infos[j] ? schemaLiterals(infos[j]?.tool.inputSchema) : undefined;
    for (const { param, value } of idLikeValues(call.arguments, literals)) {
      if (appearsIn(value, earlierTexts(), [scenario.prompt])) continue;
      const leaf =
        param
          .split('.')
          .filter((x) => !/^\d+$/.test(x))
          .pop() ?? param;
      for (let i = j - 1; i >= 0; i--) {
        const info = infos[i];
        if (info && !canHost(info)) continue;
        // Not into a listed item: nothing in the user's words would pick that item (`checks/determinacy.ts`).
        if (plantAtRoot(i, leaf, value) || plant(i, leaf, value, true)) break;
      }
    }
  });

  // A listed item a later call takes is the one the user named (`picks.ts`, the scenario stage's words).
  const names = pickNames(infos, calls, sources);
  sources.forEach((m, j) => {
    for (const [param, i] of m) {
      const producer = infos[i];
      const r = results[i];
      if (!producer || !r) continue;
      const raw = calls[j]?.arguments[param];
      for (const v of Array.isArray(raw) ? raw : [raw]) {
        const pick = pickOf(producer, param, v, names);
        // Only a name the request says (an LLM-written scenario given these outputs says none): else the list is cut below.
        if (!pick || pick.isValue || (typeof v !== 'string' && typeof v !== 'number') || !containsWords(scenario.prompt, pick.name)) continue;
        const named = nameItem(r.output, v, pick.name, kept);
        if (named !== undefined && validFor(i)(named)) r.output = named;
      }
    }
  });
  // A call about one thing answers about that thing: its own identifier, not a sampled one.
  calls.forEach((call, i) => {
    const r = results[i];
    const info = infos[i];
    if (!r || !info || info.verbClass === 'discover' || info.verbClass === 'create') return;
    const answered = ownIdentity(r.output, call.name, call.arguments, kept);
    if (answered !== undefined && validFor(i)(answered)) r.output = answered;
    // And it is the thing the user named in an earlier listing: "get the user "Aiko Haddad"" answers with Aiko's name.
    const named = sameNames(
      r.output,
      call.name,
      call.arguments,
      results.slice(0, i).map((x) => x.output),
      kept,
    );
    if (named !== undefined && validFor(i)(named)) r.output = named;
  });
  // What is still undetermined (a value from one item of a list the user's words do not pick) is
  // made determinate the plain way: the list shows that one item.
  const turns = [{ prompt: scenario.prompt, calls: calls.map((_, k) => k) }];
  for (const f of checkDeterminacy({ calls, outputs: results.map((r) => r.output), turns, spec }).findings) {
    if (f.kind !== 'item-not-identified') continue;
    for (let i = f.callIndex - 1; i >= 0; i--) {
      const r = results[i];
      const cut = r ? cutToItem(r.output, f.value, kept) : undefined;
      if (r && cut !== undefined && validFor(i)(cut)) {
        r.output = cut;
        break;
      }
    }
  }

  // The workflow succeeds (no error is simulated), so no output may report a failure the response would contradict.
  results.forEach((r, i) => {
    r.output = succeeded(r.output, validFor(i));
  });

  const mock_workflow: MockCall[] = calls.map((c, i) => ({
    name: c.name,
    arguments: c.arguments,
    explanation: c.explanation,
    output: results[i]?.output ?? null,
    grounding: results[i]?.grounding ?? 'low',
  }));
  const sentences = mock_workflow.map((m, i) => reportCall(infos[i], m.output));
  return { mock_workflow, expected_response: sentences.join(' ') };
}
