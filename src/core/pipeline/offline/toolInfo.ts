/**
 * What the offline generator reads out of a spec without an LLM: each tool's verb and entity
 * (from its name, else its description, else its annotations), whether it reads or acts, its
 * parameters, and the data dependencies between tools ("tool A produces what tool B's parameter
 * P needs").
 *
 * ## Dependency heuristics (`producerScore`)
 * A parameter is a *reference* when it is named like an identifier (`*_id`, `*Sid`, `key`,
 * `path`…; see `isIdName`), has `format: uuid`, or is named after an entity some tool lists or
 * creates (`index` ← `list_indices`, `repo` ← `search_repositories`). Tool A produces B's
 * reference P when A does not delete, and (best first):
 * - A's outputSchema has a property named like P (`connectionId` ← `connect`'s output): 5;
 * - P names an entity (`channel_id`, `CallSid`, `issue_number`) whose head noun is A's entity
 *   (`slack_list_channels`, `ListCall`, `list_issues`): 4; or A's entity contains it: 3;
 * - P is a bare identifier (`id`, `sid`, `path`, `key`) and A and B act on the same entity
 *   (`ListCall` → `FetchCall.Sid`), file-like entities counting as one family (but a file read
 *   supplies no path): 3;
 * - P's description names A as the value's source ("from the page snapshot", "Call list_pages"): 4.
 * Ties prefer listing/searching tools, then reads, then creates; scores below 3 are no edge.
 */
import type { Spec, Tool } from '../../spec/model';
import { isIdName, nameWords, singular } from '../../checks/integrity';
import { deref, objectShape, typeList, type SchemaNode } from '../../checks/jsonSchemaUtil';
import { depthReason } from '../../checks/satisfiable';
import { expansionReason } from '../../checks/schemaExpansion';
import { compileSchema } from '../../checks/validateCall';
import { runSteps, type Steps } from './steps';
import { isRecord } from '../../util/isRecord';

/** What a tool does to its entity. */
export type VerbClass = 'discover' | 'read' | 'create' | 'update' | 'delete' | 'action';

const VERBS: Record<string, VerbClass> = {};
const addVerbs = (cls: VerbClass, words: string): void => {
  for (const w of words.split(/\s+/)) if (w) VERBS[w] = cls;
};
addVerbs('discover', 'list search find query scan browse lookup enumerate ls explore filter aggregate match discover');
addVerbs(
  'read',
  'get fetch retrieve read show describe view open inspect check stat info status explain diff log logs analyze download resolve export take preflight extract measure ping exists len members count',
);
addVerbs(
  'create',
  'create add insert new post generate upload index push fork put make register connect install start write place publish send reply comment trigger request invite clone copy duplicate import save store init initialize build deploy',
);
addVerbs(
  'update',
  'update patch modify edit set rename move replace merge assign change toggle convert align apply upgrade scale rollout reset restore commit checkout mark manage configure tag label sync approve switch',
);
addVerbs(
  'delete',
  'delete remove drop del destroy purge uninstall close cancel stop disconnect dismiss clear cleanup unsubscribe kill revoke archive unassign pop rem expire terminate unlink detach',
);
addVerbs(
  'action',
  'click type fill hover drag press navigate evaluate run exec execute call emulate handle select resize wait subscribe psubscribe screencast think echo upload drop forward port',
);

/** Words dropped from entity names. */
const STOP = new Set([
  'a',
  'an',
  'the',
  'by',
  'for',
  'of',
  'to',
  'from',
  'with',
  'in',
  'on',
  'all',
  'and',
  'or',
  'my',
  'detail',
  'details',
  'info',
  'information',
  'id',
  'api',
  'tool',
  'multiple',
  'specific',
  'new',
  'existing',
  'current',
  'single',
  'using',
  'via',
  'as',
  'into',
  'at',
]);

/** Short names that stand for an entity. */
const ALIASES: Record<string, string> = {
  repo: 'repository',
  pr: 'pull',
  msg: 'message',
  db: 'database',
  ns: 'namespace',
  org: 'organization',
  dir: 'directory',
  ts: 'timestamp',
  conn: 'connection',
  coll: 'collection',
  idx: 'index',
};

const FILE_FAMILY = new Set(['file', 'directory', 'folder', 'path', 'tree', 'media', 'document']);

/** One top-level parameter. */
export interface ParamInfo {
  name: string;
  /** The parameter's schema with `$ref`s followed. */
  schema: SchemaNode;
  required: boolean;
  /** A reference to another entity (see the module doc). */
  isRef: boolean;
  /** Entity words the name refers to (`channel_id` → [channel]); empty for bare ids. */
  entity: string[];
  description: string;
  /** Tools the description names as the value's source ("from the page snapshot", "Call list_pages"), by name. */
  producedBy?: Set<string>;
}

/** A tool as the offline generator sees it. */
export interface ToolInfo {
  tool: Tool;
  index: number;
  name: string;
  /** Name words without the prefix most tools of the spec share (`browser_`, `TwilioApiV2010--`). */
  words: string[];
  verb: string | undefined;
  verbClass: VerbClass;
  /** Entity words, singular (`[pull, request]`). */
  entity: string[];
  /** Last entity word (the head noun), or '' when none. */
  head: string;
  /** Readable entity (`pull request`, or the tool's words when no entity was found). */
  label: string;
  /** Reads (no side effects) or acts. Annotations win over the verb. */
  phase: 'read' | 'act';
  destructive: boolean;
  params: ParamInfo[];
  hasOutputSchema: boolean;
  /** Squashed names of every property in the outputSchema (deep). */
  outputKeys: Set<string>;
  /** First sentence of the description. */
  summary: string;
  /** Why the tool cannot be called, when its inputSchema is unusable. */
  broken?: string;
}

/** The analysis of a whole spec. */
export interface SpecAnalysis {
  spec: Spec;
  tools: ToolInfo[];
  byName: Map<string, ToolInfo>;
  /** Tools by their head noun (non-empty heads only), each list in spec order. */
  byHead: Map<string, ToolInfo[]>;
  /**
   * Best producers of (tool, param), best first, cached. Lists are shared between parameters
   * that rank producers alike, so one may hold the consumer itself: callers skip it.
   */
  producers(consumer: ToolInfo, param: ParamInfo): readonly ToolInfo[];
  /** Score of A producing B's parameter (0 = none). */
  producerScore(producer: ToolInfo, consumer: ToolInfo, param: ParamInfo): number;
}

const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Splits text into the first sentence (descriptions can be pages long). */
export function firstSentence(text: string | undefined, max = 240): string {
  if (!text) return '';
  const clean = text.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(clean);
  const s = m?.[1] ?? clean;
  return s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;
}

function verbOfWord(word: string): VerbClass | undefined {
  return VERBS[word] ?? VERBS[singular(word)] ?? (word.endsWith('es') ? VERBS[word.slice(0, -2)] : undefined);
}

/** Verb from a description's first words ("Retrieves the…", "Get all members…"). */
function verbFromDescription(description: string): { verb: string; cls: VerbClass } | undefined {
  const words = description
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean)
    .slice(0, 10);
  for (const w of words) {
    const base = w.endsWith('ies')
      ? `${w.slice(0, -3)}y`
      : w.endsWith('es') && VERBS[w.slice(0, -2)]
        ? w.slice(0, -2)
        : w.endsWith('s') && VERBS[w.slice(0, -1)]
          ? w.slice(0, -1)
          : w;
    const cls = VERBS[base];
    if (cls) return { verb: base, cls };
  }
  return undefined;
}

/** Verb hidden in a compact name (`hgetall`, `lpush`, `srem`): a one-letter prefix plus a verb. */
function compactVerb(word: string): string | undefined {
  for (const cut of [1, 4]) {
    const rest = word.slice(cut);
    for (const v of Object.keys(VERBS)) if (v.length >= 3 && rest.startsWith(v)) return v;
  }
  return undefined;
}

function entityWordsOf(words: readonly string[]): string[] {
  return words
    .map((w) => ALIASES[w] ?? w)
    .map(singular)
    .filter((w) => !STOP.has(w) && !/^v?\d+$/.test(w) && w.length > 1);
}

/** Plurals that name one thing. */
const NOT_PLURAL = new Set([
  'details',
  'contents',
  'stats',
  'status',
  'settings',
  'info',
  'logs',
  'news',
  'analytics',
  'metrics',
  'address',
  'access',
  'progress',
  'process',
]);

const DETERMINERS = new Set([
  'a',
  'an',
  'the',
  'all',
  'one',
  'or',
  'more',
  'multiple',
  'new',
  'existing',
  'given',
  'specific',
  'single',
  'some',
  'any',
  'each',
  'every',
  'its',
  'their',
  'your',
  'current',
  'detailed',
  'various',
  'specified',
  'selected',
  'provided',
]);
const PREPOSITIONS = new Set([
  'from',
  'to',
  'in',
  'of',
  'for',
  'with',
  'by',
  'on',
  'that',
  'and',
  'at',
  'into',
  'as',
  'using',
  'via',
  'based',
  'if',
  'which',
  'when',
  'where',
  'within',
  'across',
  'about',
  'between',
  'through',
  'over',
  'under',
  'per',
  'after',
  'before',
  'against',
  'onto',
]);

/** Entity from a description: the noun phrase after its first verb ("Remove a member from…" → [member]). */
function entityFromDescription(description: string, brand: ReadonlySet<string>): string[] | undefined {
  const words = description
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .slice(0, 16);
  const at = words.findIndex(
    (w) => VERBS[w] !== undefined || (w.endsWith('s') && VERBS[w.slice(0, -1)] !== undefined) || (w.endsWith('es') && VERBS[w.slice(0, -2)] !== undefined),
  );
  if (at < 0) return undefined;
  const phrase: string[] = [];
  for (const w of words.slice(at + 1)) {
    // "Wait for the text…", "Search for repositories…": a preposition right after the verb belongs to it.
    if (!phrase.length && ['for', 'on', 'over', 'up'].includes(w)) continue;
    // "documents matching the query": a participle after the noun starts a clause.
    if (PREPOSITIONS.has(w) || (phrase.length > 0 && /ing$/.test(w))) break;
    if (DETERMINERS.has(w) || brand.has(w)) continue;
    phrase.push(w);
    if (phrase.length >= 2) break;
  }
  const entity = entityWordsOf(phrase);
  return entity.length ? entity : undefined;
}

/** Entity words a parameter name refers to: the name without its id-ish suffix. */
export function paramEntity(name: string): string[] {
  const words = nameWords(name);
  const last = words[words.length - 1];
  if (last && (isIdName(name) || ['name', 'number', 'num', 'no'].includes(singular(last)))) words.pop();
  return entityWordsOf(words);
}

/** `readAt`: the shallowest depth each part was read at; a part met again no shallower adds no key (shared `$defs` are read once). */
function collectOutputKeys(schema: unknown, root: unknown, out: Set<string>, depth = 0, readAt = new Map<unknown, number>()): void {
  if (depth > 8 || !isRecord(schema) || (readAt.get(schema) ?? Infinity) <= depth) return;
  readAt.set(schema, depth);
  const node = deref(schema, root);
  if (isRecord(node.properties)) {
    for (const [k, v] of Object.entries(node.properties)) {
      out.add(squash(k));
      collectOutputKeys(v, root, out, depth + 1, readAt);
    }
  }
  if (node.items) collectOutputKeys(node.items, root, out, depth + 1, readAt);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const alts = node[key];
    if (Array.isArray(alts)) for (const a of alts) collectOutputKeys(a, root, out, depth + 1, readAt);
  }
}

/** Why an inputSchema cannot be used to build calls, or undefined when it can. */
function brokenReason(tool: Tool): string | undefined {
  const schema = tool.inputSchema;
  if (schema !== undefined && !isRecord(schema)) return 'inputSchema is not an object';
  const tooLarge = expansionReason(schema ?? {}, 'inputSchema') ?? (tool.outputSchema != null ? expansionReason(tool.outputSchema, 'outputSchema') : undefined);
  if (tooLarge) return tooLarge;
  // No value, or none the sampler builds: say so rather than try, fail and skip it as "invalid after retries".
  const tooDeep = depthReason(schema ?? {}, 'inputSchema') ?? (tool.outputSchema != null ? depthReason(tool.outputSchema, 'outputSchema') : undefined);
  if (tooDeep) return tooDeep;
  const compiled = compileSchema(schema ?? {});
  if (!compiled.ok) return `inputSchema cannot be compiled: ${compiled.message}`;
  return undefined;
}

/** Shared leading words of most tool names (e.g. `twilio api v2010`), dropped before finding verbs. */
function commonPrefix(all: readonly string[][]): number {
  if (all.length < 3) return 0;
  let n = 0;
  for (;;) {
    const counts = new Map<string, number>();
    for (const w of all) {
      const word = w[n];
      if (word !== undefined && w.length > n + 1) counts.set(word, (counts.get(word) ?? 0) + 1);
    }
    const top = [...counts.values()].sort((a, b) => b - a)[0] ?? 0;
    if (top < all.length * 0.6) return n;
    // Only strip when the shared word is not itself a verb ("list_", "get_" are meaning, not prefix).
    const word = [...counts.entries()].find(([, c]) => c === top)?.[0];
    if (word === undefined || VERBS[word]) return n;
    n++;
  }
}

/** Analyses every tool of a spec. Pure: depends on the spec only. */
export function analyzeSpec(spec: Spec): SpecAnalysis {
  return runSteps(analyzeSpecSteps(spec));
}

/** {@link analyzeSpec} in steps, one tool per step (compiling a tool's schema takes milliseconds; a spec can have hundreds). */
export function* analyzeSpecSteps(spec: Spec): Steps<SpecAnalysis> {
  const allWords = spec.tools.map((t) => nameWords(t.name));
  // Words of the server's name ("Redis", "MCP", "server") say nothing about an entity.
  const brand = new Set([...nameWords(spec.server?.name ?? ''), 'mcp', 'server']);
  const prefixLen = commonPrefix(allWords);
  const describe = (tool: Tool, index: number): ToolInfo => {
    const raw = allWords[index] ?? [];
    const words = raw.length > prefixLen ? raw.slice(prefixLen) : raw;
    let verb: string | undefined;
    let verbAt = -1;
    for (let i = 0; i < words.length; i++) {
      const w = words[i] as string;
      if (verbOfWord(w)) {
        verb = VERBS[w] ? w : singular(w);
        verbAt = i;
        break;
      }
    }
    // REST-shaped names (`post-search`, `put-alias`): a later verb says more than the HTTP method.
    if ((verb === 'post' || verb === 'put') && verbAt >= 0) {
      const later = words.slice(verbAt + 1).findIndex((w) => verbOfWord(w) !== undefined && VERBS[w] !== 'create');
      if (later >= 0) {
        verbAt = verbAt + 1 + later;
        verb = words[verbAt];
      }
    }
    let verbClass: VerbClass | undefined = verb ? verbOfWord(verb) : undefined;
    if (!verb) {
      for (const w of words) {
        const v = compactVerb(w);
        if (v) {
          verb = v;
          verbClass = VERBS[v];
          break;
        }
      }
    }
    const description = tool.description ?? '';
    if (!verb) {
      const fromDesc = verbFromDescription(description);
      if (fromDesc) {
        verb = fromDesc.verb;
        verbClass = fromDesc.cls;
      }
    }
    const ann = tool.annotations ?? undefined;
    if (!verbClass) verbClass = ann?.readOnlyHint ? 'read' : ann?.destructiveHint ? 'delete' : 'action';

    // "create_or_update_file": the second verb is part of the action, not the entity.
    const after = verbAt >= 0 ? words.slice(verbAt + 1) : [];
    while ((after[0] === 'or' || after[0] === 'and') && after[1] !== undefined && VERBS[after[1]]) after.splice(0, 2);
    let entity = verbAt >= 0 ? entityWordsOf(after) : [];
    if (!entity.length && verbAt > 0) entity = entityWordsOf(words.slice(0, verbAt));
    // Names without a separable verb (`hgetall`, `zrem`, `sequentialthinking`): the description names the entity.
    if (verbAt < 0) entity = entityFromDescription(description, brand) ?? entityWordsOf(words.filter((w) => w !== verb));
    // A name whose "entity" is a verb or a participle (`git_checkout`, `git_diff_staged`, `wait_for`) names no thing: the description does ("Switches branches").
    const head0 = entity[entity.length - 1];
    if (!head0 || VERBS[head0] !== undefined || /(ed|ing)$/.test(head0) || head0 === verb) entity = entityFromDescription(description, brand) ?? entity;
    // `get_users`, `get_artboards`: a read of a plural is a listing.
    const lastWord = after[after.length - 1];
    if (
      verbClass === 'read' &&
      lastWord &&
      singular(lastWord) !== lastWord &&
      !NOT_PLURAL.has(lastWord) &&
      (verb === 'get' || verb === 'fetch' || verb === 'retrieve')
    )
      verbClass = 'discover';
    const phase: 'read' | 'act' =
      ann?.readOnlyHint === true ? 'read' : ann?.readOnlyHint === false ? 'act' : verbClass === 'discover' || verbClass === 'read' ? 'read' : 'act';
    const destructive = phase === 'act' && (ann?.destructiveHint === true || (ann?.destructiveHint === undefined && verbClass === 'delete'));

    const schema = tool.inputSchema ?? {};
    const shape = objectShape(schema, schema);
    const params: ParamInfo[] = Object.entries(shape.properties).map(([name, s]) => {
      const ps = deref(s, schema);
      return {
        name,
        schema: ps,
        required: shape.required.includes(name),
        isRef: false,
        entity: paramEntity(name),
        description: typeof ps.description === 'string' ? ps.description : '',
      };
    });
    const outputKeys = new Set<string>();
    const hasOutputSchema = isRecord(tool.outputSchema);
    if (hasOutputSchema) collectOutputKeys(tool.outputSchema, tool.outputSchema, outputKeys);
    const info: ToolInfo = {
      tool,
      index,
      name: tool.name,
      words,
      verb,
      verbClass,
      entity,
      head: entity[entity.length - 1] ?? '',
      label: entity.length ? entity.join(' ') : words.join(' '),
      phase,
      destructive,
      params,
      hasOutputSchema,
      outputKeys,
      summary: firstSentence(description),
    };
    const broken = brokenReason(tool);
    if (broken) info.broken = broken;
    return info;
  };
  const tools: ToolInfo[] = [];
  for (const [index, tool] of spec.tools.entries()) {
    tools.push(describe(tool, index));
    yield;
  }

  // Entities some tool lists or creates: a parameter named after one is a reference.
  const producedHeads = new Set(
    tools
      .filter((t) => t.verbClass === 'discover' || t.verbClass === 'create')
      .map((t) => t.head)
      .filter(Boolean),
  );
  for (const t of tools) {
    for (const p of t.params) {
      // Scalars, and lists of scalars (`ids: string[]`, `entityNames: string[]`).
      const items = types0(p.schema) === 'array' && isRecord(p.schema.items) ? deref(p.schema.items, t.tool.inputSchema) : undefined;
      const types = items ? typeList(items) : typeList(p.schema);
      const scalar = (types.length === 0 && !items?.properties) || types.some((x) => x === 'string' || x === 'integer' || x === 'number');
      const head = p.entity[p.entity.length - 1];
      const nameOnly = p.entity.length === nameWords(p.name).length;
      const naming = ['name', 'number', 'num', 'slug'].includes(singular(nameWords(p.name).pop() ?? ''));
      p.isRef =
        scalar &&
        (isIdName(p.name) || p.schema.format === 'uuid' || items?.format === 'uuid' || (head !== undefined && (nameOnly || naming) && producedHeads.has(head)));
    }
  }

  const sources = sourceIndex(tools);
  for (const t of tools) for (const p of t.params) describedSource(p, t, sources);

  const byName = new Map<string, ToolInfo>();
  for (const t of tools) if (!byName.has(t.name)) byName.set(t.name, t);
  const push = <K>(m: Map<K, ToolInfo[]>, k: K, t: ToolInfo): void => {
    const list = m.get(k);
    if (list) list.push(t);
    else m.set(k, [t]);
  };
  // Indexes of the tools that can score as producers (see `candidates`), each list in spec order.
  const byHead = new Map<string, ToolInfo[]>();
  const allByName = new Map<string, ToolInfo[]>();
  const byEntityWord = new Map<string, ToolInfo[]>();
  const byOutputKey = new Map<string, ToolInfo[]>();
  const fileFamily: ToolInfo[] = [];
  for (const t of tools) {
    if (t.head) push(byHead, t.head, t);
    push(allByName, t.name, t);
    for (const w of new Set(t.entity)) push(byEntityWord, w, t);
    if (t.hasOutputSchema) for (const k of t.outputKeys) push(byOutputKey, k, t);
    if (FILE_FAMILY.has(t.head)) fileFamily.push(t);
  }

  const sameFamily = (a: ToolInfo, b: ToolInfo): boolean => (a.head !== '' && a.head === b.head) || (FILE_FAMILY.has(a.head) && FILE_FAMILY.has(b.head));

  /** The score of A producing B's P were A not B (B enters only through its head: `sameFamily`). */
  const producerScoreFor = (a: ToolInfo, b: ToolInfo, p: ParamInfo): number => {
    if (a.broken || !p.isRef) return 0;
    if (a.verbClass === 'delete' || a.destructive) return 0;
    let s = p.producedBy?.has(a.name) ? 4 : 0;
    const key = squash(p.name);
    if (a.hasOutputSchema && key.length >= 4 && a.outputKeys.has(key) && (p.entity.length > 0 || sameFamily(a, b))) s = 5;
    if (p.entity.length) {
      const pHead = p.entity[p.entity.length - 1] as string;
      if (a.head === pHead) s = Math.max(s, 4);
      else if (p.entity.every((w) => a.entity.includes(w))) s = Math.max(s, 3);
      else if (FILE_FAMILY.has(pHead) && FILE_FAMILY.has(a.head)) s = Math.max(s, 3);
    } else if (sameFamily(a, b) && (a.verbClass === 'discover' || a.verbClass === 'create' || (a.verbClass === 'read' && !FILE_FAMILY.has(a.head)))) {
      // Reading a file yields its content, not other paths: only listings and creates supply a bare `path`.
      s = Math.max(s, 3);
    }
    if (s < 3) return 0;
    const bonus = a.verbClass === 'discover' ? 0.5 : a.verbClass === 'read' ? 0.3 : a.verbClass === 'create' ? 0.2 : 0;
    return s + bonus;
  };
  const producerScore = (a: ToolInfo, b: ToolInfo, p: ParamInfo): number => (a === b ? 0 : producerScoreFor(a, b, p));

  /**
   * Every tool that can score above 0 as a producer of B's P (a superset): one of the tools P's
   * description names, one whose output has P's key, one whose head or entity holds P's head,
   * one of B's family; each clause of `producerScore` needs one of these.
   */
  const candidates = (b: ToolInfo, p: ParamInfo): Set<ToolInfo> => {
    const out = new Set<ToolInfo>();
    const add = (list: readonly ToolInfo[] | undefined): void => {
      for (const t of list ?? []) out.add(t);
    };
    for (const name of p.producedBy ?? []) add(allByName.get(name));
    const key = squash(p.name);
    if (key.length >= 4) add(byOutputKey.get(key));
    const pHead = p.entity[p.entity.length - 1];
    if (pHead !== undefined) {
      add(byHead.get(pHead));
      add(byEntityWord.get(pHead));
      if (FILE_FAMILY.has(pHead)) add(fileFamily);
    }
    if (b.head) add(byHead.get(b.head));
    if (FILE_FAMILY.has(b.head)) add(fileFamily);
    return out;
  };

  // Ranked per what the ranking depends on (P's sources, key and entity; B's head only when P
  // names no entity), not per (B, P): the thousands of tools taking one `issue_id` share one
  // list, so ranking is linear in the tools, not quadratic. B itself (never its own producer)
  // is kept out of the scores by ranking for it and left to callers to skip.
  const cache = new Map<string, ToolInfo[]>();
  const producers = (b: ToolInfo, p: ParamInfo): readonly ToolInfo[] => {
    if (!p.isRef) return [];
    const key = [[...(p.producedBy ?? [])].join('\u0001'), squash(p.name), p.entity.join(' '), p.entity.length ? '' : b.head].join('\u0000');
    let hit = cache.get(key);
    if (!hit) {
      hit = [...candidates(b, p)]
        .map((a) => ({ a, s: producerScoreFor(a, b, p) }))
        .filter((x) => x.s > 0)
        .sort((x, y) => y.s - x.s || x.a.index - y.a.index)
        .map((x) => x.a);
      cache.set(key, hit);
    }
    return hit;
  };

  return { spec, tools, byName, byHead, producers, producerScore };
}

/** "…from the page content snapshot", "…from the listed console messages", "Call list_pages to…": where a parameter's value comes from. */
const SOURCE_PHRASE = /\bfrom the (?:listed |returned )?((?:[a-z]+ ){0,3}[a-z]+)/i;

/** Runs of identifier characters, as `\b` in a regular expression sees words. */
const WORD_RUNS = /[A-Za-z0-9_]+/g;

/**
 * The tools a parameter's description may name as its source, indexed once per spec so that
 * each description is matched against the few tools it could name, not against every tool (a
 * 20,000-tool spec has tens of thousands of described parameters).
 */
interface SourceIndex {
  /** Named-outright candidates by the longest identifier run of their name (every run of a name a `\b`-bounded match finds is a whole word run of the text). */
  byRun: Map<string, ToolInfo[]>;
  /** Names with no identifier character: always tried. */
  unindexed: ToolInfo[];
  /** Non-destructive tools by the singular of each of their name words, built on first use. */
  byWord?: Map<string, ToolInfo[]>;
  /** Per candidate tool, the regex that finds its name as a whole word: built once, not per parameter. */
  nameRegex: Map<ToolInfo, RegExp>;
  sources: readonly ToolInfo[];
}

function sourceIndex(tools: readonly ToolInfo[]): SourceIndex {
  const sources = tools.filter((t) => !t.destructive && t.verbClass !== 'delete');
  const byRun = new Map<string, ToolInfo[]>();
  const unindexed: ToolInfo[] = [];
  for (const t of sources) {
    if (t.name.length < 5) continue;
    const runs = t.name.match(WORD_RUNS);
    if (!runs) {
      unindexed.push(t);
      continue;
    }
    const key = runs.reduce((a, b) => (b.length > a.length ? b : a));
    const list = byRun.get(key);
    if (list) list.push(t);
    else byRun.set(key, [t]);
  }
  return { byRun, unindexed, sources, nameRegex: new Map() };
}

function nameRegexOf(index: SourceIndex, t: ToolInfo): RegExp {
  let re = index.nameRegex.get(t);
  if (!re) index.nameRegex.set(t, (re = new RegExp(`\\b${t.name.replace(/[^A-Za-z0-9_]/g, '\\$&')}\\b`)));
  return re;
}

/** Source tools whose name words hold `noun` (singular), in spec order. */
function toolsWithWord(index: SourceIndex, noun: string): readonly ToolInfo[] {
  if (!index.byWord) {
    const byWord = new Map<string, ToolInfo[]>();
    for (const t of index.sources) {
      for (const w of new Set(t.words.map(singular))) {
        const list = byWord.get(w);
        if (list) list.push(t);
        else byWord.set(w, [t]);
      }
    }
    index.byWord = byWord;
  }
  return index.byWord.get(noun) ?? [];
}

/**
 * Marks a scalar parameter whose description names its source as a reference produced by the
 * non-destructive tools it names: one named outright (`list_pages`), else those whose name words hold
 * the phrase's last noun (`take_snapshot` for "from the page content snapshot").
 */
function describedSource(p: ParamInfo, owner: ToolInfo, index: SourceIndex): void {
  const scalar = typeList(p.schema).some((x) => x === 'string' || x === 'integer');
  if (!scalar || !p.description) return;
  const candidates = new Set(index.unindexed);
  for (const run of new Set(p.description.match(WORD_RUNS))) for (const t of index.byRun.get(run) ?? []) candidates.add(t);
  let named = [...candidates].filter((t) => t !== owner && nameRegexOf(index, t).test(p.description)).sort((a, b) => a.index - b.index);
  if (!named.length) {
    const phrase = SOURCE_PHRASE.exec(p.description)?.[1];
    const noun = phrase ? singular(phrase.toLowerCase().split(' ').pop() ?? '') : '';
    if (noun.length >= 4) named = toolsWithWord(index, noun).filter((t) => t !== owner);
  }
  if (!named.length) return;
  p.isRef = true;
  p.producedBy = new Set(named.map((t) => t.name));
}

function types0(schema: SchemaNode): string | undefined {
  return typeList(schema).find((t) => t !== 'null');
}

/** Human plural of an entity label (`pull request` → `pull requests`). */
export function plural(label: string): string {
  if (!label) return 'items';
  if (/(children|people|data|info|information|media|news|series|status|settings|details|contents|metrics|analytics)$/.test(label)) return label;
  if (/(matrix|index|vertex)$/.test(label)) return `${label.slice(0, -2)}ices`;
  if (/(s|x|z|ch|sh)$/.test(label)) return `${label}es`;
  if (/[^aeiou]y$/.test(label)) return `${label.slice(0, -1)}ies`;
  return `${label}s`;
}
