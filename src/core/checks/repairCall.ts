/**
 * Repair of a call's arguments at the argument, before anyone thinks of discarding the call
 * (issue 21: a scenario was lost, and its batch re-asked, for an optional `period` that missed
 * its pattern). What the code can fix without guessing, it fixes and names; what it cannot is
 * left for the caller, with the exact errors of `validateToolArguments`.
 *
 * In this order, on top-level parameters (nested values are validated, never rewritten):
 * 1. **Renamed** (`argument-renamed`): a parameter the tool does not declare whose name matches
 *    exactly one declared parameter not already given, up to case, `_`/`-` separators
 *    (camelCase ↔ snake_case) and a plural `s`/`es`/`ies`.
 * 2. **Extra** (`extra-argument-dropped`): any other parameter the schema does not accept (it
 *    closes the object, or does not name it: see `validateCall`'s `rejectUnknownParams`).
 * 3. **Coerced** (`argument-coerced`): a lossless slip, kept only when the new value passes the
 *    parameter's schema: `"5"` → 5, `"true"` → true, 5 → `"5"`, `x` → `[x]`, `[x]` → `x`, and a
 *    JSON string parsed for an object or array (or the whole arguments sent as a JSON string).
 * 4. **Identifier minted** (`identifier-minted`): a required parameter that fails because it
 *    holds readable names (`"q3-roadmap"`) where its schema wants UUIDs (`format: uuid`, at the
 *    top or inside an object or a union's branch): each such string becomes the name-based UUID
 *    of that name (version 5 in a fixed namespace), one at a time while the errors go down, kept
 *    only when the parameter then validates. The same name always gives the same UUID, so a
 *    value shared by two calls (or stated by the user and held by an earlier output, which are
 *    filled in after this) stays one value. A provider's structured output has no keyword for
 *    the format, so a model that ignores the slot's description lost the call (every call of
 *    four notion.json tools under a schema-only model).
 * 5. **Optional dropped** (`optional-argument-dropped`): an optional parameter whose value still
 *    fails its schema (pattern, format, type, enum, length, bounds…) is left out, so the tool's
 *    default applies.
 *
 * What is left (an unknown tool, a missing or invalid required value, a failure no single
 * parameter owns) makes the call unrepairable: `check` holds its errors.
 */
import { createHash } from 'node:crypto';
import type { Tool } from '../spec/model';
import { isRecord } from '../util/isRecord';
import { setOwn } from '../util/ownKeys';
import { objectShape } from './jsonSchemaUtil';
import { validateToolArguments, type CallCheck } from './validateCall';
import type { CallError } from '../harness/format';

/** What kind of repair a call got (counted as `<stage>:<kind>`). */
export type RepairKind = 'argument-renamed' | 'extra-argument-dropped' | 'argument-coerced' | 'identifier-minted' | 'optional-argument-dropped';

/** One repair of one parameter. */
export interface ArgumentRepair {
  kind: RepairKind;
  param: string;
  /** What was done, in words (`'limit': "5" read as 5`). */
  message: string;
}

/** A call's arguments after repair, what was repaired, and the check of the result. */
export interface RepairedArguments {
  arguments: Record<string, unknown>;
  repairs: ArgumentRepair[];
  /** `validateToolArguments` of the repaired arguments: not ok means unrepairable. */
  check: CallCheck;
}

/** A name up to case, separators and a plural ending. */
function stem(name: string): string {
  const s = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (s.length > 4 && s.endsWith('ies')) return `${s.slice(0, -3)}y`;
  if (s.length > 3 && /(ses|xes|zes|ches|shes)$/.test(s)) return s.slice(0, -2);
  if (s.length > 2 && s.endsWith('s') && !s.endsWith('ss')) return s.slice(0, -1);
  return s;
}

/** The top-level parameter an error belongs to, when one does. */
function ownerOf(e: CallError, args: Record<string, unknown>): string | undefined {
  if (e.param === undefined) return undefined;
  if (Object.hasOwn(args, e.param)) return e.param;
  const first = e.param.split('.')[0]!;
  return Object.hasOwn(args, first) ? first : undefined;
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/** Lossless readings of a value as another JSON type, most likely first. */
function coercions(v: unknown): unknown[] {
  const out: unknown[] = [];
  if (typeof v === 'string') {
    const t = v.trim();
    if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(t)) out.push(Number(t));
    if (t === 'true' || t === 'false') out.push(t === 'true');
    if (/^[[{]/.test(t)) {
      try {
        out.push(JSON.parse(t) as unknown);
      } catch {
        // not JSON: no reading
      }
    }
  }
  if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') out.push(String(v));
  if (Array.isArray(v) && v.length === 1) out.push(v[0]);
  if (!Array.isArray(v) && v !== null && v !== undefined) out.push([v]);
  return out;
}

/** The namespace of minted identifiers: a fixed UUID of our own, so the same name mints the same UUID in every run. */
const MINT_NAMESPACE = 'c4a1f2d6-5f0b-5e7a-9c33-2b8d1e6f4a90';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The name-based (version 5, RFC 9562) UUID of `name` in {@link MINT_NAMESPACE}. */
export function nameUuid(name: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(MINT_NAMESPACE.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Most strings of one value tried as names (a huge value is not searched). */
const MAX_NAME_LEAVES = 32;

/** The strings in a value that could be names standing for UUIDs (not UUIDs, not blank), with where they are. */
function nameLeaves(v: unknown, path: readonly (string | number)[] = [], out: Array<{ path: (string | number)[]; name: string }> = []): typeof out {
  if (out.length >= MAX_NAME_LEAVES) return out;
  if (typeof v === 'string') {
    if (v.trim() && !UUID.test(v.trim())) out.push({ path: [...path], name: v.trim() });
  } else if (Array.isArray(v)) v.forEach((x, i) => nameLeaves(x, [...path, i], out));
  else if (isRecord(v)) for (const [k, x] of Object.entries(v)) nameLeaves(x, [...path, k], out);
  return out;
}

/** A copy of `v` with `value` at `path` (copies along the path only; `__proto__` an ordinary key). */
function withValueAt(v: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (!path.length) return value;
  const [head, ...rest] = path;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? withValueAt(x, rest, value) : x));
  const copy: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) setOwn(copy, k, k === head ? withValueAt(x, rest, value) : x);
  return copy;
}

const errorsOf = (check: CallCheck, param: string, args: Record<string, unknown>): CallError[] => check.errors.filter((e) => ownerOf(e, args) === param);

/** Repairs a call's arguments against its tool (see the module doc). */
export function repairArguments(tool: Tool, raw: unknown): RepairedArguments {
  const repairs: ArgumentRepair[] = [];
  let value = raw;
  if (typeof value === 'string' && /^\s*\{/.test(value)) {
    try {
      const parsed = JSON.parse(value) as unknown;
      if (isRecord(parsed)) {
        value = parsed;
        repairs.push({ kind: 'argument-coerced', param: '', message: 'the arguments, sent as a JSON string, parsed' });
      }
    } catch {
      // left as it is: the check names it
    }
  }
  let check = validateToolArguments(tool, value);
  if (check.ok || !isRecord(value)) return { arguments: isRecord(value) ? value : {}, repairs, check };
  const args: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(args, k, v);
  const shape = objectShape(tool.inputSchema ?? {}, tool.inputSchema ?? {});
  const declared = Object.keys(shape.properties);
  const required = new Set(shape.required);

  // 1–2. Parameters the tool does not accept: renamed when one declared name is close, else dropped.
  const unknown = check.errors.filter((e) => e.kind === 'unknown-param' && e.param !== undefined && Object.hasOwn(args, e.param)).map((e) => e.param!);
  for (const name of new Set(unknown)) {
    const matches = declared.filter((d) => d !== name && !Object.hasOwn(args, d) && stem(d) === stem(name));
    const v = args[name];
    delete args[name];
    if (matches.length === 1) {
      setOwn(args, matches[0]!, v);
      repairs.push({ kind: 'argument-renamed', param: matches[0]!, message: `'${name}' read as '${matches[0]}'` });
    } else repairs.push({ kind: 'extra-argument-dropped', param: name, message: `'${name}' is not a parameter of '${tool.name}'; left out` });
  }
  if (unknown.length) check = validateToolArguments(tool, args);

  // 3. Lossless slips, each kept only when the parameter then validates.
  const failing = [...new Set(check.errors.map((e) => ownerOf(e, args)).filter((p): p is string => p !== undefined))];
  let coerced = false;
  for (const param of failing) {
    for (const c of coercions(args[param])) {
      const trial = { ...args };
      setOwn(trial, param, c);
      if (errorsOf(validateToolArguments(tool, trial), param, trial).length) continue;
      repairs.push({ kind: 'argument-coerced', param, message: `'${param}': ${show(args[param])} read as ${show(c)}` });
      setOwn(args, param, c);
      coerced = true;
      break;
    }
  }
  if (coerced) check = validateToolArguments(tool, args);

  // 4. Readable names where a required value needs UUIDs (at the top or inside it): their name-based UUIDs.
  let minted = false;
  for (const param of new Set(check.errors.map((e) => ownerOf(e, args)).filter((p): p is string => p !== undefined))) {
    if (!required.has(param)) continue;
    let best = args[param];
    let left = errorsOf(check, param, args).length;
    const names: string[] = [];
    for (const leaf of nameLeaves(best)) {
      const candidate = withValueAt(best, leaf.path, nameUuid(leaf.name));
      const trial = { ...args };
      setOwn(trial, param, candidate);
      const n = errorsOf(validateToolArguments(tool, trial), param, trial).length;
      if (n >= left) continue;
      best = candidate;
      left = n;
      names.push(leaf.name);
      if (n === 0) break;
    }
    // Kept only when the value is then valid: a partial minting would change a value and still lose the call.
    if (left > 0 || !names.length) continue;
    const one = names.length === 1;
    const what = `${names.map((n) => show(n)).join(', ')} ${one ? 'is not a UUID; read as the UUID named by it' : 'are not UUIDs; read as the UUIDs named by them'}`;
    repairs.push({ kind: 'identifier-minted', param, message: `'${param}': ${what}` });
    setOwn(args, param, best);
    minted = true;
  }
  if (minted) check = validateToolArguments(tool, args);

  // 5. Optional parameters that still fail: left out.
  let dropped = false;
  for (const param of new Set(check.errors.map((e) => ownerOf(e, args)).filter((p): p is string => p !== undefined))) {
    if (required.has(param)) continue;
    const why = errorsOf(check, param, args)[0]?.message ?? 'invalid';
    delete args[param];
    repairs.push({ kind: 'optional-argument-dropped', param, message: `optional ${why}; left out` });
    dropped = true;
  }
  if (dropped) check = validateToolArguments(tool, args);
  return { arguments: args, repairs, check };
}
