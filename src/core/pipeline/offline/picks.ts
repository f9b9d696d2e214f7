/**
 * Which item of an earlier call's list a later call uses, said the same way by the two offline
 * stages that must agree on it: the scenario stage names the item in the user's words ("get the
 * replies in the "harbor-launch" channel"), the mock stage gives the listed item holding the
 * chained value that name. So the item is determined by what the user said
 * (`checks/determinacy.ts`), as a user who knows their workspace would say it, and an agent has
 * to read the listing to find it rather than take the first row.
 *
 * The name is a function of the entity and the value only, so both stages compute it without
 * passing anything between them.
 */
import { valueClass } from '../../checks/grounding';
import { isIdName, nameWords } from '../../checks/integrity';
import { hash32 } from './rng';
import type { ToolInfo } from './toolInfo';
import { isRecord } from '../../util/isRecord';

/** Last words of a parameter whose value is the item's name. */
const NAME_PARAMS = new Set(['name', 'title', 'label', 'login', 'username', 'handle']);

/** Entities whose items are people: named like people. */
const PERSON_HEADS = new Set([
  'user',
  'member',
  'person',
  'contact',
  'owner',
  'assignee',
  'author',
  'customer',
  'employee',
  'participant',
  'attendee',
  'reviewer',
  'profile',
  'people',
]);
const FIRST = ['Dana', 'Priya', 'Marcus', 'Elena', 'Tomas', 'Aiko', 'Jonah', 'Farah', 'Lucas', 'Nadia', 'Omar', 'Greta'];
const LAST = ['Whitfield', 'Okafor', 'Lindqvist', 'Moreau', 'Castillo', 'Nakamura', 'Brennan', 'Haddad', 'Kowalski', 'Varga'];
const FIRST_WORDS = [
  'atlas',
  'harbor',
  'beacon',
  'cedar',
  'summit',
  'orbit',
  'lumen',
  'quarry',
  'meridian',
  'juniper',
  'falcon',
  'willow',
  'granite',
  'aurora',
  'ember',
  'heron',
];
const SECOND_WORDS = ['launch', 'ops', 'review', 'sync', 'support', 'roadmap', 'billing', 'onboarding', 'design', 'research'];

/** The name the user calls the item holding `value` by, for a list of `head` items (a person's name for people); `attempt` draws another. */
export function itemNameFor(head: string, value: string | number, attempt = 0): string {
  const h = hash32(`${head}\u0000${String(value)}\u0000${attempt}`);
  if (PERSON_HEADS.has(head)) return `${FIRST[h % FIRST.length] ?? 'Dana'} ${LAST[(h >>> 8) % LAST.length] ?? 'Whitfield'}`;
  return `${FIRST_WORDS[h % FIRST_WORDS.length] ?? 'atlas'}-${SECOND_WORDS[(h >>> 8) % SECOND_WORDS.length] ?? 'ops'}`;
}

/** Whether a schema (shallow: the root and its properties, two levels) has an array. */
function hasArray(schema: unknown, depth = 0): boolean {
  if (!isRecord(schema) || depth > 2) return false;
  if (schema.type === 'array' || schema.items !== undefined) return true;
  return isRecord(schema.properties) && Object.values(schema.properties).some((p) => hasArray(p, depth + 1));
}

/** Whether a tool's output lists items, so a later call's value from it needs its item named. */
export function listsItems(info: ToolInfo): boolean {
  return info.verbClass === 'discover' || (info.hasOutputSchema && hasArray(info.tool.outputSchema));
}

/**
 * How the user picks the item a chained value comes from, or undefined when the producer does not
 * list items: the value itself when it is a name the user would say (a channel called "general"),
 * else the item's name (`itemNameFor`). Paths are left to the listing rules (`listing.ts`).
 */
export function pickOf(producer: ToolInfo, param: string, value: unknown, names?: PickNames): { name: string; isValue: boolean } | undefined {
  if (!listsItems(producer) || (typeof value !== 'string' && typeof value !== 'number')) return undefined;
  const cls = valueClass(param, value);
  if (cls === 'path') return undefined;
  // A value under a parameter not named like an identifier (`branch_name`, `base_branch`) is the
  // item's name itself (the mock plants it as the item's `name`): the user says it.
  const last = nameWords(param).pop() ?? '';
  if (typeof value === 'string' && (cls === 'name' || cls === 'token' || cls === 'text' || NAME_PARAMS.has(last) || !isIdName(param)))
    return { name: value, isValue: true };
  const head = producer.head || producer.label;
  return { name: names?.get(pickKey(head, value)) ?? itemNameFor(head, value), isValue: false };
}

/** The names of a scenario's picked items, by entity and value (see `pickNames`). */
export type PickNames = ReadonlyMap<string, string>;

const pickKey = (head: string, value: string | number): string => `${head}\u0000${String(value)}`;

/**
 * A name for every listed item a scenario's calls take, no two alike (two connections both called
 * "granite-roadmap" would let the user's words pick neither). Both stages call it on the same
 * calls and chain sources, so they agree without passing anything.
 */
export function pickNames(
  infos: readonly (ToolInfo | undefined)[],
  calls: readonly { arguments: Record<string, unknown> }[],
  sources: readonly ReadonlyMap<string, number>[],
): PickNames {
  const names = new Map<string, string>();
  const used = new Set<string>();
  const picks: { head: string; value: string | number }[] = [];
  calls.forEach((call, j) => {
    for (const [param, i] of sources[j] ?? []) {
      const producer = infos[i];
      if (!producer) continue;
      const raw = call.arguments[param];
      for (const v of Array.isArray(raw) ? raw : [raw]) {
        const pick = pickOf(producer, param, v);
        if (!pick || (typeof v !== 'string' && typeof v !== 'number')) continue;
        // A value that is its item's own name is said as it is: no drawn name may take it.
        if (pick.isValue) used.add(pick.name);
        else picks.push({ head: producer.head || producer.label, value: v });
      }
    }
  });
  for (const { head, value } of picks) {
    const key = pickKey(head, value);
    if (names.has(key)) continue;
    let attempt = 0;
    let name = itemNameFor(head, value, attempt);
    while (used.has(name) && attempt < 64) name = itemNameFor(head, value, ++attempt);
    names.set(key, name);
    used.add(name);
  }
  return names;
}
