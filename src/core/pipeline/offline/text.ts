/**
 * Wording for offline scenarios: what a user asks for (from the tool's own description where it
 * starts with a verb, else from its verb and entity), how values are mentioned, and summaries
 * of mock outputs that cite concrete values (the paper asks expected responses and follow-ups
 * to reference names, IDs, counts and statuses).
 */
import { nameWords, singular } from '../../checks/integrity';
import { plural, type ToolInfo } from './toolInfo';
import { cap } from './values';
import { isRecord } from '../../util/isRecord';

const THIRD_PERSON: Record<string, string> = { does: 'do', has: 'have', goes: 'go' };

/** Base form of a verb as descriptions write it (`Retrieves` → `retrieve`, `Lists` → `list`). */
function baseVerb(word: string): string {
  const w = word.toLowerCase();
  if (THIRD_PERSON[w]) return THIRD_PERSON[w];
  if (/ies$/.test(w)) return `${w.slice(0, -3)}y`;
  if (/(ches|shes|sses|xes|zes)$/.test(w)) return w.slice(0, -2);
  if (/[^s]s$/.test(w)) return w.slice(0, -1);
  return w;
}

const LEADS =
  /^(this tool (will |can )?|use this tool to |use this to |tool to |a tool (to|that|for) |used to |allows you to |lets you |helps (you )?(to )?|can be used to |you can )/i;
const COMMON_VERBS = new Set(
  'list search find query scan get fetch retrieve read show describe view open inspect check explain analyze download resolve export take create add insert post generate upload index push fork put make register connect install start write place publish send reply comment trigger request invite clone copy update patch modify edit set rename move replace merge assign change toggle convert align apply upgrade scale rollout reset restore commit checkout mark manage configure delete remove drop destroy purge uninstall close cancel stop disconnect dismiss clear click type fill hover drag press navigate evaluate run execute call emulate handle select resize wait subscribe unsubscribe return perform echo record capture count measure extract append stage unstage compute calculate geocode reverse translate summarize store save load print switch wait emulate capture verify validate'.split(
    ' ',
  ),
);

/**
 * The task a tool performs, phrased for a user: the first sentence of its description that
 * starts with a verb ("Fetch the call specified by the provided Call SID"), cut at asides;
 * undefined when no sentence does.
 */
export function descriptionPhrase(description: string | undefined, head = '', cut = true): string | undefined {
  if (!description) return undefined;
  const sentences = description
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+/)
    .slice(0, 3);
  for (const raw of sentences) {
    const s = raw.replace(LEADS, '').trim();
    const first = /^[A-Za-z]+/.exec(s)?.[0];
    if (!first) continue;
    const verb = baseVerb(first);
    if (!COMMON_VERBS.has(verb)) continue;
    let rest = s.slice(first.length).split(/ - | \(|:|;|\. |, e\.g\.|, such as|, this |, which | Use | Returns? /)[0] ?? '';
    rest = userObject(plainRequest(rest.replace(/[.!?]+$/, '').trim()), cut);
    // REST plumbing ("make a POST request to /2010-04-01/Accounts/{Sid}.json") reads badly to a user.
    if (!rest || /[{}]|\/\S*\.json|https?:\/\/|\brequest to\b/i.test(rest)) continue;
    const phrase = `${verb} ${rest}`.replace(/\s+/g, ' ');
    // A user says what they want in a few words; a longer phrase is the description recited.
    if (phrase.split(' ').length > MAX_PHRASE_WORDS) continue;
    // And names the thing ("modify the properties" of what?): the tool's head noun must be in it.
    if (head && !phrase.split(/[^A-Za-z]+/).some((w) => singular(w.toLowerCase()) === head)) continue;
    return phrase;
  }
  return undefined;
}

/** Most words of a task phrase taken from a description (fewer than the 7 a recitation check counts). */
export const MAX_PHRASE_WORDS = 6;

/** Words a description uses to point at its argument, which a user never says ("a specific message thread"). */
const POINTERS = /\b(specific|specified|given|provided|particular|corresponding|requested|desired|target|existing)\s+/gi;

/**
 * The object of a description's request as a user says it: pointer words dropped, cut before a
 * trailing qualification ("channels in the workspace with pagination" → "channels"): a phrase
 * after the object that starts with in/with/from/within/for/by/using/across/of/on (from the
 * second word on) is how the tool works, not what the user wants.
 */
function userObject(rest: string, cut = true): string {
  const words = rest
    .replace(POINTERS, '')
    // "a list of all users" is "all users": the container is how the tool answers, not what is asked for.
    .replace(/^(?:an? |the )?(?:list|collection|set|array|instance|summary|series|number) of (?:the )?/i, '')
    .replace(/\s+/g, ' ')
    .trim()
    .split(' ');
  const at = words.findIndex(
    (w, i) =>
      cut &&
      i >= 1 &&
      /^(in|with|from|within|for|by|using|across|of|on|as|including|based|via|belonging|representing|containing|matching|associated|that|which|and)$/i.test(w),
  );
  return (at > 0 ? words.slice(0, at) : words).join(' ').replace(/[,;]+$/, '');
}

/**
 * A description's object trimmed to what a user would ask: an alternative second verb goes
 * ("a new file or completely overwrite an existing file…" → "a new file") and so does a
 * placeholder for the argument the request names anyway ("…directories in a specified path").
 */
function plainRequest(rest: string): string {
  const alt = / or (?:completely |simply |just |also )?([a-z]+)( (?:a|an|the|all|it|them|existing)\b)?/.exec(rest);
  const verb = alt?.[1];
  if (alt && verb && (COMMON_VERBS.has(baseVerb(verb)) || verb === 'ensure' || alt[2]) && rest.slice(0, alt.index).split(' ').length >= 2)
    rest = rest.slice(0, alt.index);
  return rest.replace(/ (?:in|at|for|from|of|on) (?:a|an|the) (?:specified|given|provided) [\w-]+(?=,|$)/, '').trim();
}

/** Phrases given to tools whose own phrase another tool of the spec shares (`distinctPhrases`). */
const distinct = new WeakMap<object, string>();

/**
 * Makes the task phrases of a spec's tools tell them apart: two tools asked for in the same words
 * ("show changes" for the staged and the unstaged diff) leave the user's request unable to say
 * which one is meant. A shared phrase becomes the description's phrase without the cut of its
 * qualification ("show changes that are staged"), if that tells it apart within six words, else
 * the tool's name when it starts with a verb ("read multiple files"), else the phrase with the
 * name's words the others lack ("show changes (staged)").
 */
export function distinctPhrases(tools: readonly ToolInfo[]): void {
  const byPhrase = new Map<string, ToolInfo[]>();
  for (const t of tools) {
    const p = taskPhrase(t);
    byPhrase.set(p, [...(byPhrase.get(p) ?? []), t]);
  }
  for (const [phrase, group] of byPhrase) {
    if (group.length < 2) continue;
    const fuller = group.map((t) => descriptionPhrase(t.tool.description, t.head, false));
    const unique = fuller.every((f, i) => f !== undefined && f !== phrase && fuller.indexOf(f) === i);
    group.forEach((t, i) => {
      if (unique) {
        distinct.set(t.tool, fuller[i] as string);
        return;
      }
      // The words of its name the others lack ("multiple", "staged"); none: it keeps the plain phrase.
      const others = new Set(group.filter((o) => o !== t).flatMap((o) => o.words.map(singular)));
      const said = new Set(phrase.split(' ').map((w) => singular(w.toLowerCase())));
      const own = t.words.filter((w) => !others.has(singular(w)) && !said.has(singular(w)));
      if (!own.length) return;
      // A name that starts with a verb reads as a request ("read multiple files"); else the words go in brackets.
      distinct.set(t.tool, COMMON_VERBS.has(t.words[0] ?? '') ? t.words.join(' ') : `${phrase} (${own.join(' ')})`);
    });
  }
}

/**
 * The task a tool performs, for prompts and titles; never a verb with itself as object ("delete
 * the delete"). `plain`: from the tool's verb and noun only, never the description's words.
 */
export function taskPhrase(info: ToolInfo, plain = false): string {
  const told = plain ? undefined : distinct.get(info.tool);
  if (told !== undefined) return told;
  const phrase = rawTaskPhrase(info, plain);
  const twice = /^([a-z]+) (?:the |a new )?\1(?: (.*))?$/i.exec(phrase);
  return twice ? [twice[1], twice[2] ? `the ${twice[2]}` : 'it'].join(' ') : phrase;
}

/** Verbs a user says of reading one thing; any other reading verb (`status`, `diff`, `log`) reads as a noun: "show the … status". */
const READ_VERBS = new Set([
  'get',
  'read',
  'fetch',
  'show',
  'view',
  'describe',
  'retrieve',
  'inspect',
  'check',
  'open',
  'download',
  'export',
  'explain',
  'analyze',
]);
/** Verbs that take their object with "to" (reply to a thread). */
const TO_VERBS = new Set(['reply', 'respond', 'comment', 'subscribe', 'connect', 'navigate', 'switch']);

function rawTaskPhrase(info: ToolInfo, plain: boolean): string {
  const fromDescription = plain ? undefined : descriptionPhrase(info.tool.description, info.head);
  if (fromDescription) return fromDescription;
  const label = info.label || 'it';
  const verb = info.verb;
  switch (info.verbClass) {
    case 'discover':
      return verb && verb !== 'list' ? `${verb} the ${plural(label)}` : `list the ${plural(label)}`;
    case 'read':
      if (!verb || READ_VERBS.has(verb)) return `${verb ?? 'get'} the ${label}`;
      return label.split(' ').includes(verb) ? `show the ${label}` : `show the ${label} ${verb}`;
    case 'create':
      if (verb && TO_VERBS.has(verb)) return `${verb} to the ${label}`;
      return verb && verb !== 'create' ? `${verb} a ${label}` : `create a new ${label}`;
    case 'update':
      return `${info.verb ?? 'update'} the ${label}`;
    case 'delete':
      return `${info.verb ?? 'delete'} the ${label}`;
    default:
      return info.words.join(' ') || info.name;
  }
}

/** A short title for a tool's step (`Fetch call`). */
export function stepTitle(info: ToolInfo): string {
  const verb = info.verb ?? (info.verbClass === 'discover' ? 'list' : info.verbClass === 'read' ? 'get' : 'run');
  const label = info.label || info.words.join(' ');
  // "Log commit log" says the verb twice: the label alone is the title then.
  const text = info.verbClass === 'discover' ? `${verb} ${plural(label)}` : label.split(' ').includes(verb) ? label : `${verb} ${label}`;
  return cap(text);
}

/** A parameter name as words (`AccountSid` → `account sid`, `page_id` → `page id`). */
export function humanParam(path: string): string {
  const last =
    path
      .split('.')
      .filter((p) => !/^\d+$/.test(p))
      .pop() ?? path;
  return nameWords(last).join(' ') || last;
}

/** A value as a user would quote it. */
export function quote(value: unknown): string {
  if (typeof value === 'string') return `"${value}"`;
  return JSON.stringify(value);
}

/** Joins phrases: `a`, `a and b`, `a, b and c`. */
export function listJoin(items: readonly string[], last = 'and'): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

/** Salient scalar facts of an output (`sid "CA12…"`, `status "completed"`), at most `max`. */
export function facts(output: unknown, max = 3): string[] {
  const out: string[] = [];
  const preferred = /^(id|sid|uuid|key|name|title|status|state|count|total|total_?count|number|path|url|result|message|content)$/i;
  const visit = (v: unknown, depth: number): void => {
    if (out.length >= max || depth > 3) return;
    if (Array.isArray(v)) {
      if (v.length) visit(v[0], depth + 1);
      return;
    }
    if (!isRecord(v)) return;
    const entries = Object.entries(v);
    const ordered = [...entries.filter(([k]) => preferred.test(k)), ...entries.filter(([k]) => !preferred.test(k))];
    for (const [k, x] of ordered) {
      if (out.length >= max) return;
      if (typeof x === 'string' && x.length && x.length <= 80 && !x.includes('\n')) out.push(`${humanParam(k)} ${quote(x)}`);
      else if (typeof x === 'number' || typeof x === 'boolean') out.push(`${humanParam(k)} ${String(x)}`);
      else if (typeof x === 'string' && x.length) out.push(`${humanParam(k)} ${quote(`${x.split('\n')[0]?.slice(0, 60) ?? ''}…`)}`);
    }
    if (out.length < max) for (const [, x] of ordered) if (typeof x === 'object' && x !== null) visit(x, depth + 1);
  };
  visit(output, 0);
  return out;
}

/** How many items an output lists (its first array), if it lists any. */
export function itemCount(output: unknown): number | undefined {
  if (Array.isArray(output)) return output.length;
  if (!isRecord(output)) return undefined;
  for (const v of Object.values(output)) if (Array.isArray(v)) return v.length;
  return undefined;
}

/** Keys that name the thing an output is about, best first. */
const NAMING_KEYS = ['name', 'title', 'path', 'id', 'sid', 'key', 'uuid', 'number', 'slug'];

/** Keys that identify the thing an output is about. */
const ID_KEYS = ['id', 'sid', 'key', 'uuid', 'number', 'path', 'slug'];

/** The value naming an output's (first) item, quoted: `"feature/retry"`, or undefined; `keys` picks which fields count. */
export function namingValue(output: unknown, keys: readonly string[] = NAMING_KEYS): string | undefined {
  let item: unknown = output;
  for (let depth = 0; depth < 4 && !Array.isArray(item) && isRecord(item); depth++) {
    const list = Object.values(item).find((v) => Array.isArray(v) && v.length > 0 && isRecord(v[0]));
    if (!list || NAMING_KEYS.some((k) => Object.hasOwn(item as Record<string, unknown>, k))) break;
    item = list;
  }
  if (Array.isArray(item)) item = item[0];
  if (!isRecord(item)) return undefined;
  for (const k of keys) {
    const v = item[k];
    if ((typeof v === 'string' && v.length > 0 && v.length <= 80 && !v.includes('\n')) || typeof v === 'number')
      return keys === ID_KEYS ? `${humanParam(k)} ${quote(v)}` : quote(v);
  }
  return undefined;
}

const IRREGULAR_PAST: Record<string, string> = {
  run: 'ran',
  take: 'took',
  send: 'sent',
  find: 'found',
  get: 'got',
  make: 'made',
  write: 'wrote',
  read: 'read',
  set: 'set',
  put: 'put',
  begin: 'began',
};

/** Past tense of a verb in base form (`wait` → `waited`, `drop` → `dropped`, `type` → `typed`). */
function pastTense(verb: string): string {
  if (IRREGULAR_PAST[verb]) return IRREGULAR_PAST[verb];
  if (verb.endsWith('e')) return `${verb}d`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ied`;
  // One short syllable ending consonant-vowel-consonant doubles its last letter (drop → dropped, drag → dragged).
  if (/^[^aeiou]*[aeiou][bdgmnpt]$/.test(verb)) return `${verb}${verb.slice(-1)}ed`;
  return `${verb}ed`;
}

/** Whether a label names several things (`block children`, `commit logs`), so it takes "are". */
function pluralLabel(label: string): boolean {
  const last = label.split(' ').pop() ?? '';
  return /(children|people)$/.test(last) || (/s$/.test(last) && !/(ss|us|is|ics)$/.test(last));
}

/** One sentence, in the agent's voice, reporting what a call returned with concrete values. */
export function reportCall(info: ToolInfo | undefined, output: unknown): string {
  const label = info?.label || 'result';
  const f = facts(output);
  const detail = f.length ? ` (${listJoin(f)})` : '';
  switch (info?.verbClass) {
    case 'discover': {
      const n = itemCount(output);
      if (n === 0) return `I found no ${plural(label)}.`;
      const name = namingValue(output);
      const id = namingValue(output, ID_KEYS);
      const first = name && id && !id.endsWith(name) ? `${name} (${id})` : (name ?? id);
      return n !== undefined
        ? `I found ${n} ${n === 1 ? label : plural(label)}${first && n > 1 ? `, the first being ${first}` : first ? `: ${first}` : ''}.`
        : `I searched the ${plural(label)}${detail}.`;
    }
    case 'read':
      return `Here ${pluralLabel(label) ? 'are' : 'is'} the ${label}${detail}.`;
    case 'create':
      return `I created the ${label}${detail}.`;
    case 'update':
      return `I updated the ${label}${detail}.`;
    case 'delete':
      return `I removed the ${label}${detail}.`;
    default:
      if (!info) return `The call completed${detail}.`;
      {
        const [verb = 'ran', ...rest] = taskPhrase(info).split(' ');
        return `I ${[pastTense(verb), ...rest].join(' ')}${detail}.`;
      }
  }
}

/**
 * How a user answers a result before asking for the next step, quoting it: "So there are 3
 * branches, the first being "feature/retry"." or "Good, the page shows title "Checkout"."
 */
export function userReaction(info: ToolInfo | undefined, output: unknown): string {
  const label = info?.label || 'result';
  const n = info?.verbClass === 'discover' ? itemCount(output) : undefined;
  const first = namingValue(output);
  if (n !== undefined)
    return n === 0
      ? `So there are no ${plural(label)}.`
      : `So there ${n === 1 ? 'is 1' : `are ${n}`} ${n === 1 ? label : plural(label)}${first ? `, the first being ${first}` : ''}.`;
  const fact = facts(output, 1)[0];
  return fact ? `Good, the ${label} shows ${fact}.` : 'Thanks.';
}
