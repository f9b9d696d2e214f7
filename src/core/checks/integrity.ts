/**
 * Referential integrity of a workflow (the gap the paper's review names first): an identifier a
 * later call uses must come from somewhere the agent could have seen it, i.e. an earlier mock
 * output or the user's prompt. Otherwise the harness asks the agent to guess an ID, and a
 * correct agent scores as wrong.
 *
 * ## What counts as ID-like (`idLikeReason`)
 * Booleans and free text never do. A string is first excluded when it is shorter than 3 or
 * longer than 256 characters, is an ISO date/time, a version (`1.4.2`), a hex colour, a CSS or
 * unit size (`12px`, `30s`), a MIME type, a locale (`en-US`), a URL (addresses are what users
 * type, and pages link them freely), or an email (unless the parameter is named like an ID).
 * Then it is ID-like when:
 * 1. **by name**: its parameter (last path segment, singularised) is named like an identifier:
 *    `id`, `*_id`, `*Id`, `*Sid`, `uid`, `uuid`, `guid`, `key`, `handle`, `ref`, `sha`, `hash`,
 *    `slug`, `path`, `cursor`, `*Ids`… (integers too, and numeric strings), provided it has no
 *    whitespace;
 * 2. **uuid**: it is a UUID;
 * 3. **path**: it starts with `/`, `~/`, `./`, `../` or a drive letter (spaces allowed inside);
 * 4. **mixed token**: no whitespace, at least 6 characters, at least 2 digits and 1 letter
 *    (`C024BE91L`, `AC3f9e…`, `user42`), which keeps `utf8`/`h264`/`mp4` out;
 * 5. **slug**: no whitespace, at least 5 characters, alphanumeric runs joined by `-`, `_`, `.`,
 *    `:` or `/` (`payments-api`, `user:1042`, `acme/widgets`, `logs-2026.05`).
 * When the spec is given, values the tool's schema itself lists (`enum`, `const`, `default`,
 * `examples`) are never ID-like: they come from the schema, not from data.
 *
 * ## What counts as "appears"
 * The value (as text) occurs in an earlier output or in the visible prompt(s) on word
 * boundaries: equal to a leaf, an object key, or inside a longer text leaf (listings and
 * messages embed IDs). A number in an output must be a leaf of its own, or sit in prose
 * (text with spaces) when it has 3+ digits, so `2` is not "found" in `page-2`. A path also counts when its file name occurs in an earlier output and
 * its directory occurs in the prompt or an earlier output (`list_directory` then `read_file`).
 * Calls only see outputs of calls before them, and the first call is not checked (its values
 * are the user's request by definition).
 */
import type { IntegrityViolation } from '../harness/format';
import type { Spec } from '../spec/model';
import { findTool } from './validateCall';
import { isRecord } from '../util/isRecord';

const ID_SUFFIXES = new Set(['id', 'sid', 'uid', 'uuid', 'guid', 'key', 'handle', 'ref', 'sha', 'hash', 'slug', 'path', 'cursor', 'arn', 'urn']);

/** Splits a parameter name into lower-case words: `channel_id`, `CallSid`, `page-id`, `a.b` → words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** Singular of a lower-case English word, good enough for identifiers (`indices` → `index`, `ids` → `id`). */
export function singular(word: string): string {
  if (word.length <= 3) return word === 'ids' ? 'id' : word;
  if (/ices$/.test(word)) return word.replace(/ices$/, 'ex');
  if (/ies$/.test(word)) return word.replace(/ies$/, 'y');
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(sses|shes|ches|xes|zes)$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Whether a parameter name reads as an identifier (rule 1). */
export function isIdName(param: string): boolean {
  const words = nameWords(param);
  const last = words[words.length - 1];
  if (!last) return false;
  return ID_SUFFIXES.has(singular(last));
}

const RE = {
  isoDate: /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/,
  time: /^\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?$/,
  version: /^v?\d+(\.\d+)+([-+][\w.]+)?$/,
  color: /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/,
  size: /^-?\d+(\.\d+)?(px|em|rem|%|pt|vh|vw|ms|s|m|h|d|w|kb|mb|gb|tb|k|x)$/i,
  mime: /^(application|text|image|audio|video|multipart|font)\/[\w.+-]+$/,
  locale: /^[a-z]{2,3}[-_](?:[A-Z]{2}|[A-Z][a-z]{3})$/,
  url: /^[a-z][a-z0-9+.-]*:\/\//i,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  pathStart: /^(\/|~\/|\.\.?\/|[A-Za-z]:[\\/])[^\n]*$/,
  slug: /^[A-Za-z0-9]+(?:[-_.:/][A-Za-z0-9]+)+$/,
  numeric: /^-?\d+$/,
};

/** Why a value is ID-like (the rule's name), or undefined when it is not. See the module doc. */
export function idLikeReason(param: string, value: unknown): 'name' | 'uuid' | 'path' | 'mixed' | 'slug' | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && isIdName(param) && !/path|cursor/.test(param.toLowerCase()) ? 'name' : undefined;
  if (typeof value !== 'string') return undefined;
  const s = value;
  if (s.length < 3 || s.length > 256) return undefined;
  if (RE.isoDate.test(s) || RE.time.test(s) || RE.version.test(s) || RE.color.test(s) || RE.size.test(s)) return undefined;
  if (RE.mime.test(s) || RE.locale.test(s) || RE.url.test(s)) return undefined;
  const byName = isIdName(param);
  if (RE.email.test(s)) return byName ? 'name' : undefined;
  if (RE.uuid.test(s)) return 'uuid';
  if (RE.pathStart.test(s) && !/\s{2}/.test(s)) return 'path';
  if (/\s/.test(s)) return undefined;
  if (byName) return 'name';
  const digits = (s.match(/\d/g) ?? []).length;
  if (s.length >= 6 && digits >= 2 && /[A-Za-z]/.test(s)) return 'mixed';
  if (s.length >= 5 && RE.slug.test(s) && !RE.numeric.test(s)) return 'slug';
  return undefined;
}

/** Whether a value is ID-like for a parameter name. */
export function isIdLike(param: string, value: unknown): boolean {
  return idLikeReason(param, value) !== undefined;
}

/** An ID-like value found in arguments, with its dotted path. */
export interface IdValue {
  /** Dotted path (`owner`, `parent.page_id`, `paths.0`). */
  param: string;
  value: string | number;
}

/**
 * The ID-like values in an arguments object (deep). Array elements are judged by the array's
 * name (`paths: [...]` → path). `exclude` holds schema-given values (enum/const/default).
 */
export function idLikeValues(args: unknown, exclude?: ReadonlySet<string>): IdValue[] {
  const out: IdValue[] = [];
  const walk = (v: unknown, path: string[], name: string): void => {
    if (typeof v === 'string' || typeof v === 'number') {
      if (exclude?.has(String(v))) return;
      if (isIdLike(name, v)) out.push({ param: path.join('.'), value: v });
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, String(i)], name));
    } else if (isRecord(v)) {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k], k);
    }
  };
  walk(args, [], '');
  return out;
}

/** All strings a schema itself supplies (enum, const, default, examples), deep. */
export function schemaLiterals(schema: unknown): ReadonlySet<string> {
  // Cached per schema object: every record checks its calls' schemas, and a 100,000-value enum is long to walk each time.
  const cached = isRecord(schema) ? literalsCache.get(schema) : undefined;
  if (cached) return cached;
  const out = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === 'string' || typeof v === 'number') out.add(String(v));
    else if (Array.isArray(v)) v.forEach(add);
  };
  const walk = (node: unknown, depth: number): void => {
    if (depth > 40) return;
    if (Array.isArray(node)) node.forEach((n) => walk(n, depth + 1));
    else if (isRecord(node)) {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') add(v);
        else walk(v, depth + 1);
      }
    }
  };
  walk(schema, 0);
  if (isRecord(schema)) literalsCache.set(schema, out);
  return out;
}

const literalsCache = new WeakMap<object, ReadonlySet<string>>();

/** Whether `needle` occurs in `hay` on word boundaries (not inside a longer identifier). */
export function containsToken(hay: string, needle: string): boolean {
  if (!needle) return false;
  if (hay === needle) return true;
  let from = 0;
  for (;;) {
    const at = hay.indexOf(needle, from);
    if (at < 0) return false;
    const before = at > 0 ? hay[at - 1] : undefined;
    const after = hay[at + needle.length];
    const edge = (c: string | undefined, n: string | undefined): boolean =>
      c === undefined || n === undefined || !/[A-Za-z0-9]/.test(c) || !/[A-Za-z0-9]/.test(n);
    if (edge(before, needle[0]) && edge(after, needle[needle.length - 1])) return true;
    from = at + 1;
  }
}

/** Every scalar leaf and object key of a JSON value, as strings. */
export function textLeaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) textLeaves(v, out);
  else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      textLeaves(v, out);
    }
  }
  return out;
}

/** Whether a value is grounded in the given texts (see "What counts as appears"). */
export function appearsIn(value: string | number, outputTexts: readonly string[], promptTexts: readonly string[]): boolean {
  const s = String(value);
  const inAny = (texts: readonly string[], needle: string): boolean => texts.some((t) => containsToken(t, needle));
  if (inAny(promptTexts, s)) return true;
  if (typeof value === 'number') {
    // A number must be a value of its own (or sit in prose), not a digit run inside a name like "page-2".
    return outputTexts.some((t) => t === s || (s.length >= 3 && /\s/.test(t) && containsToken(t, s)));
  }
  if (inAny(outputTexts, s)) return true;
  if (typeof value === 'string' && RE.pathStart.test(value)) {
    const trimmed = value.replace(/[\\/]+$/, '');
    const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
    if (cut > 0) {
      const dir = trimmed.slice(0, cut);
      const base = trimmed.slice(cut + 1);
      if (base && inAny(outputTexts, base) && (inAny(outputTexts, dir) || inAny(promptTexts, dir))) return true;
    }
  }
  return false;
}

/** Input of `checkIntegrity`: a workflow with its outputs and what the user said. */
export interface IntegrityInput {
  /** The workflow calls in order. */
  calls: readonly { name: string; arguments: unknown }[];
  /** Output of each call, aligned by index (missing entries count as empty). */
  outputs: readonly unknown[];
  /** The user's (single-turn) prompt. */
  prompt: string;
  /**
   * Multi-turn mode: when given, a call sees only the prompts of the turns up to its own
   * (calls in no turn see `prompt`).
   */
  turns?: readonly { prompt: string; calls: readonly number[] }[];
  /** The spec, to exempt values the tool's schema supplies (enum/const/default/examples). */
  spec?: Spec;
}

/** Checks referential integrity; returns one violation per ungrounded ID-like value. */
export function checkIntegrity(input: IntegrityInput): IntegrityViolation[] {
  const violations: IntegrityViolation[] = [];
  const outputTexts: string[] = [];
  const turnOf = new Map<number, number>();
  input.turns?.forEach((t, ti) => t.calls.forEach((c) => turnOf.has(c) || turnOf.set(c, ti)));
  input.calls.forEach((call, i) => {
    if (i > 0) {
      let prompts = [input.prompt];
      const ti = turnOf.get(i);
      if (input.turns && ti !== undefined) prompts = input.turns.slice(0, ti + 1).map((t) => t.prompt);
      const tool = input.spec ? findTool(input.spec, call.name) : undefined;
      const exclude = tool ? schemaLiterals(tool.inputSchema) : undefined;
      for (const { param, value } of idLikeValues(call.arguments, exclude)) {
        if (!appearsIn(value, outputTexts, prompts)) violations.push({ callIndex: i, param, value });
      }
    }
    textLeaves(input.outputs[i], outputTexts);
  });
  return violations;
}
