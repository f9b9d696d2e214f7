/**
 * Integrity in the reply schema (issue 21): the values a mock output must hold are fixed by the
 * schema the model answers, not asked for in prose and planted afterwards.
 *
 * For each call of a workflow, the **pins** are
 * - the call's own identifiers (`get_issue(issue_id=iss_1)` answers about `iss_1`), echoed under
 *   the parameter's own name, so the output relates to its call (determinacy's `read-mismatch`);
 * - the values a later call takes from this output (`stateRequirements`), under the name the
 *   later call gives them (`channel_id` for `get_channel_history(channel_id=…)`).
 *
 * A pin becomes a one-value `enum` in the call's output slot, the one place a reader looks:
 * - **no outputSchema**: the slot is an object of the pinned fields plus `details_json`, the
 *   rest of the response as JSON in a string; the code parses it and lays the pinned fields over
 *   it (a plain-text answer is kept under `text`). A call with nothing to pin keeps the plain
 *   string slot (JSON or text), as tools answer.
 * - **an outputSchema**: the property of that name (or, for a later call's value, a property
 *   named like its entity, `id` or `name`) outside arrays gets the enum; a pin no property can
 *   take is left to the prose and to planting (`plantMissing`), as before.
 *
 * Every pin therefore sits in a field made for it, never glued onto prose, and a schema-following
 * model cannot leave it out.
 */
import type { Tool } from '../../spec/model';
import { appearsIn, idLikeValues, isIdLike, nameWords, schemaLiterals, singular } from '../../checks/integrity';
import { valueClass } from '../../checks/grounding';
import { BARE_IDS, isOwnIdParam } from '../../checks/determinacy';
import { isRecord } from '../../util/isRecord';
import { setOwn } from '../../util/ownKeys';
import { decodeJsonString, MAP_ENTRIES, valueSchema, type ArgumentSchema } from './argumentSchema';
import type { AgentCall, Scenario } from '../schemas';
import type { Spec } from '../../spec/model';
import { findTool } from '../../checks/validateCall';
import { canHost, chainSources } from '../offline/chain';
import { analysisOf } from '../offline/scenarios';

type Json = Record<string, unknown>;

/** A value fixed in one call's output. */
export interface Pin {
  /** Field names that may hold it, best first (the first free one is used). */
  keys: string[];
  value: string | number;
  /** The call's own identifier (echo) or a value a later call takes (held). */
  kind: 'echo' | 'held';
  /** An echo of the identifier of the thing the call reads (`get_page(page_id)`): the answer's bare `id` is that thing's. */
  ownId?: boolean;
}

/** The field of the no-outputSchema slot that carries the rest of the response. */
export const DETAILS_FIELD = 'details_json';

/** A field name up to case and separators (`channel_id` = `channelId`). */
export const squash = (k: string): string => k.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The last segment of a dotted parameter path that is a name, not an array index. */
function leafOf(param: string): string {
  return (
    param
      .split('.')
      .filter((x) => !/^\d+$/.test(x))
      .pop() ?? param
  );
}

/** Names a reader would look under for a value a later call passes as `param`. */
export function heldKeys(param: string): string[] {
  const leaf = leafOf(param);
  const words = nameWords(leaf);
  const last = singular(words[words.length - 1] ?? leaf);
  return [...new Set([leaf, words.join('_') || leaf, last, 'id', 'name'])];
}

/** Each call's own identifiers, names and paths, echoed (`planPins` adds the values later calls take). */
function echoPins(calls: readonly AgentCall[], tools: readonly (Tool | undefined)[]): Pin[][] {
  return calls.map((call, i) => {
    const literals = tools[i] ? schemaLiterals(tools[i].inputSchema) : undefined;
    const pins: Pin[] = [];
    // The call's own identifiers, names and paths (top-level arguments: where determinacy reads an output's subject).
    for (const [param, value] of Object.entries(isRecord(call.arguments) ? call.arguments : {})) {
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      if (literals?.has(String(value)) || (typeof value === 'string' && !value.trim())) continue;
      if (!ECHOED.has(valueClass(param, value)) && !isIdLike(param, value)) continue;
      pins.push({ keys: [param], value, kind: 'echo', ownId: isOwnIdParam(call.name, param) && valueClass(param, value) === 'id' });
    }
    return pins;
  });
}

/** Classes of arguments an output echoes under their own name (determinacy's `output-contradicts-call` reads these). */
const ECHOED: ReadonlySet<string> = new Set(['id', 'name', 'path']);

/** Root fields that name the thing an output is about. */
const ROOT_SUBJECT: ReadonlySet<string> = new Set([...BARE_IDS, 'name']);

/** A one-value enum for a pinned value. */
function fixed(value: string | number, description?: unknown): Json {
  const schema: Json = { type: typeof value === 'number' ? 'number' : 'string', enum: [value] };
  if (typeof description === 'string') schema.description = description;
  return schema;
}

/** Field names for pins in an object the code lays out itself: the first free key, else a numbered one. */
function fieldNames(pins: readonly Pin[]): string[] {
  const used = new Set<string>();
  return pins.map((p) => {
    // A held value never takes a bare `id` or `name`: at the root they say what the output is about.
    const leaf = p.keys[0]!;
    const options = p.kind === 'echo' ? [leaf] : [leaf, `related_${leaf}`];
    let name = options.find((k) => !used.has(squash(k))) ?? options[options.length - 1]!;
    for (let n = 2; used.has(squash(name)); n++) name = `${options[options.length - 1]}_${n}`;
    used.add(squash(name));
    return name;
  });
}

/** The output slot of a tool without an outputSchema that has pins (see the module doc). */
function pinnedObjectSlot(pins: readonly Pin[]): ArgumentSchema & { placed: Pin[] } {
  const names = fieldNames(pins);
  const properties: Json = {};
  pins.forEach((p, k) =>
    setOwn(properties, names[k]!, fixed(p.value, p.kind === 'echo' ? "The call's own value, echoed." : 'A value a later call takes from this response.')),
  );
  setOwn(properties, DETAILS_FIELD, {
    type: 'string',
    description: "The rest of the tool's response: a JSON object encoded in a string (or the plain text the tool prints).",
  });
  return {
    schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
    decode: (v) => {
      // A reply that ignored the slot's shape (a bare JSON text, say) is read as the details: the pins still go in.
      const rest = isRecord(v) ? decodeJsonString(v[DETAILS_FIELD]) : decodeJsonString(v);
      const out: Json = {};
      pins.forEach((p, k) => setOwn(out, names[k]!, p.value));
      const taken = new Set(names.map(squash));
      // The answered object's bare id is the read thing's own: another one there would contradict the call.
      if (pins.some((p) => p.ownId)) for (const k of BARE_IDS) taken.add(k);
      if (isRecord(rest)) {
        for (const [k, x] of Object.entries(rest)) if (!taken.has(squash(k))) setOwn(out, k, x);
      } else if (Array.isArray(rest)) out.items = rest;
      else if (typeof rest === 'string' && rest.trim()) out.text = rest;
      else if (rest !== undefined && rest !== null && rest !== '') out.value = rest;
      return out;
    },
    placed: [...pins],
  };
}

/**
 * Fixes pins in a converted outputSchema (works on a copy):
 * 1. the first property named like one of a pin's keys, of the value's type and not yet taken,
 *    breadth first through nested objects; inside a list of objects the list becomes one item
 *    long, so the value is the one item a reader can take (determinacy needs no words for it);
 * 2. else, when the tool's own schema leaves its root object open, a new root field of the
 *    pin's first key (valid against the tool's schema, and a field made for the value).
 * A pin neither can place is left to the prose and to planting.
 */
function pinIntoSchema(schema: Json, pins: readonly Pin[], openRoot: boolean): { schema: Json; placed: Pin[] } {
  const copy = structuredClone(schema);
  const taken = new Set<Json>();
  const placed: Pin[] = [];
  // Each object level with the properties that lead to it (an optional one on the way must become present).
  type Step = { props: Json; name: string };
  const levels: { props: Json; list?: Json; chain: Step[] }[] = [];
  const queue: { node: Json; depth: number; list?: Json; chain: Step[] }[] = [{ node: copy, depth: 0, chain: [] }];
  while (queue.length) {
    const { node, depth, list, chain } = queue.shift()!;
    if (node.type !== 'object' || !isRecord(node.properties)) continue;
    levels.push({ props: node.properties, chain, ...(list ? { list } : {}) });
    if (depth >= 3) continue;
    for (const [name, child] of Object.entries(node.properties)) {
      const inner = isRecord(child) ? unwrapNull(child) : undefined;
      if (!inner) continue;
      const next = [...chain, { props: node.properties, name }];
      if (inner.type === 'object') queue.push({ node: inner, depth: depth + 1, chain: next, ...(list ? { list } : {}) });
      // One list level: a list inside a list's item would need both cut.
      // A free-form object's `{key, value}` entries are not fields.
      else if (inner.type === 'array' && inner.description !== MAP_ENTRIES && !list && isRecord(inner.items) && inner.items.type === 'object')
        queue.push({ node: inner.items, depth: depth + 1, list: inner, chain: next });
    }
  }
  const cut = new Map<Json, number>();
  const echoes = pins.some((p) => p.kind === 'echo');
  for (const pin of pins) {
    const want = typeof pin.value === 'number' ? ['number', 'integer'] : ['string'];
    const spot = (() => {
      for (const key of pin.keys)
        for (const level of levels) {
          const name = Object.keys(level.props).find((k) => squash(k) === squash(key));
          const node = name !== undefined ? level.props[name] : undefined;
          if (name === undefined || !isRecord(node) || taken.has(node) || !want.includes(String(unwrapNull(node)?.type))) continue;
          // The root's bare id or name says what the output is about: a value for a later call goes there only when nothing else is.
          if (pin.kind === 'held' && !level.list && level.chain.length === 0 && ROOT_SUBJECT.has(squash(name)) && echoes) continue;
          return { level, name, node };
        }
      return undefined;
    })();
    if (spot) {
      const pinned = fixed(pin.value, spot.node.description);
      setOwn(spot.level.props, spot.name, pinned);
      taken.add(pinned);
      if (spot.level.list) cut.set(spot.level.list, 1);
      for (const step of spot.level.chain) {
        const wrapped = step.props[step.name];
        const inner = isRecord(wrapped) ? unwrapNull(wrapped) : undefined;
        if (inner && inner !== wrapped) setOwn(step.props, step.name, inner);
      }
      placed.push(pin);
      continue;
    }
    if (openRoot && copy.type === 'object' && isRecord(copy.properties)) {
      const props = copy.properties;
      let name = pin.keys[0]!;
      for (let n = 2; Object.keys(props).some((k) => squash(k) === squash(name)); n++) name = `${pin.keys[0]}_${n}`;
      const pinned = fixed(pin.value, 'A value a later call takes from this response.');
      setOwn(props, name, pinned);
      taken.add(pinned);
      copy.required = [...(Array.isArray(copy.required) ? copy.required : []), name];
      placed.push(pin);
    }
  }
  for (const list of cut.keys()) {
    list.minItems = 1;
    list.maxItems = 1;
  }
  return { schema: copy, placed };
}

/** A converted property seen through an optional's `anyOf: [null, X]`. */
function unwrapNull(node: Json): Json | undefined {
  if (!Array.isArray(node.anyOf)) return node;
  const other = node.anyOf.filter((b) => !(isRecord(b) && b.type === 'null'));
  return other.length === 1 && isRecord(other[0]) ? other[0] : undefined;
}

/** A call's output slot with its pins fixed, and the pins it could place. */
export function pinnedOutputSlot(tool: Tool | undefined, pins: readonly Pin[]): ArgumentSchema & { placed: Pin[] } {
  if (tool?.outputSchema !== undefined && tool.outputSchema !== null) {
    const base = valueSchema(tool.outputSchema);
    if (!pins.length) return { ...base, placed: [] };
    const openRoot = isRecord(tool.outputSchema) && tool.outputSchema.additionalProperties !== false;
    const { schema, placed } = pinIntoSchema(base.schema, pins, openRoot);
    return { schema, decode: base.decode, placed };
  }
  if (pins.length) return pinnedObjectSlot(pins);
  return {
    schema: { type: 'string', description: "The tool's response to this call: JSON encoded in a string, or the plain text the tool prints." },
    // Tools return text as often as JSON: a response that is not JSON is kept as the text it is.
    decode: decodeJsonString,
    placed: [],
  };
}

/** A value a later call uses that an earlier output must contain. */
export interface StateRequirement {
  /** The call that uses the value. */
  consumer: number;
  param: string;
  value: string | number;
  /** The earlier call whose output should contain it (the chained producer, else the nearest that can host it); undefined when none is. */
  producer: number | undefined;
}

/** The workflow's shared state: ID-like values of later calls that the user's prompt does not supply. */
export function stateRequirements(spec: Spec, scenario: Scenario): StateRequirement[] {
  const analysis = analysisOf(spec);
  const calls = scenario.agent_workflow;
  const sources = chainSources(analysis, calls);
  const out: StateRequirement[] = [];
  calls.forEach((call, j) => {
    if (j === 0) return;
    const tool = findTool(spec, call.name);
    const literals = tool ? schemaLiterals(tool.inputSchema) : undefined;
    for (const { param, value } of idLikeValues(call.arguments, literals)) {
      if (appearsIn(value, [], [scenario.prompt])) continue;
      const top = param.split('.')[0] ?? param;
      let producer = sources[j]?.get(top);
      if (producer === undefined) {
        for (let i = j - 1; i >= 0; i--) {
          const info = analysis.byName.get(calls[i]?.name ?? '');
          if (!info || canHost(info)) {
            producer = i;
            break;
          }
        }
      }
      out.push({ consumer: j, param, value, producer });
    }
  });
  return out;
}

/** Where a workflow's shared values go: the pins of every call, and which output holds each requirement. */
export interface PinPlan {
  reqs: StateRequirement[];
  /** Per requirement, the call whose output slot fixes it; undefined when no earlier output can (see {@link unheldValues}). */
  holder: (number | undefined)[];
  pins: Pin[][];
}

/**
 * Places every requirement in one earlier output's slot: its producer first, then the nearest
 * earlier calls, taking the first whose slot can fix the value (a tool without an outputSchema,
 * an open one, or one with a field for it).
 */
export function planPins(spec: Spec, scenario: Scenario): PinPlan {
  const calls = scenario.agent_workflow;
  const tools = calls.map((c) => findTool(spec, c.name));
  const reqs = stateRequirements(spec, scenario);
  const pins = echoPins(calls, tools);
  const holder = reqs.map((r) => {
    const order = [...(r.producer !== undefined ? [r.producer] : [])];
    for (let i = r.consumer - 1; i >= 0; i--) if (i !== r.producer) order.push(i);
    for (const i of order) {
      if (pins[i]!.some((p) => p.value === r.value) && pinnedOutputSlot(tools[i], pins[i]!).placed.some((p) => p.value === r.value)) return i;
      const pin: Pin = { keys: heldKeys(r.param), value: r.value, kind: 'held' };
      if (pinnedOutputSlot(tools[i], [...pins[i]!, pin]).placed.includes(pin)) {
        pins[i]!.push(pin);
        return i;
      }
    }
    return undefined;
  });
  return { reqs, holder, pins };
}

/**
 * The values a later call uses that no earlier output of the workflow can hold (every earlier
 * tool's outputSchema is closed and has no field for them): only the user can supply them.
 */
export function unheldValues(spec: Spec, scenario: Scenario): StateRequirement[] {
  const plan = planPins(spec, scenario);
  return plan.reqs.filter((_, k) => plan.holder[k] === undefined);
}
