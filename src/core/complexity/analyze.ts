/**
 * Schema-complexity analysis of a spec: per-tool metrics (the paper's Table 15 profile, per tool
 * and pooled per server) and findings with stable codes for diagnostics. Pure and synchronous:
 * the 197-tool Twilio spec takes milliseconds.
 */
import type { SourceRange, Spec, Tool } from '../spec/model';
import { FINDING_CODES, type FindingCode, type Severity } from './codes';
import { kindLabel, nameTokens, structuredStringHint } from './formatHints';
import { DEFAULT_COMPLEXITY } from '../workspace/defaults';
import { countFeatures, declaredTypes, DepthMeter, firstString, forEachSubschema, RefResolver, valueChain, type JsonRecord } from './schema';
import { isRecord } from '../util/isRecord';
import { compileLinear } from '../util/linearRegex';
import { refusedName, shownName } from './toolNames';
import { MAX_SAMPLE_DEPTH, MAX_SCHEMA_EXPANSION } from '../bounds';
import { contradictions, requiredDepth } from '../checks/satisfiable';
import { schemaExpansion } from '../checks/schemaExpansion';

/** Limits above which a tool gets a finding. All are "greater than" except where a name says "min". */
export interface ComplexityThresholds {
  /** `many-params` when a tool has more top-level parameters than this. */
  maxParams: number;
  /** `high-optional-ratio` when a tool's share of optional parameters is above this… */
  maxOptionalRatio: number;
  /** …and the tool has at least this many parameters (one optional of two is not overload). */
  minParamsForOptionalRatio: number;
  /** `deep-nesting` when a tool's input schema is nested deeper than this (root object = 1). */
  maxDepth: number;
  /** `ambiguous-shared-param` only for a parameter name used by at least this many tools. */
  minToolsForSharedParam: number;
  /**
   * Two descriptions of one parameter name disagree when they share less than this fraction of
   * the shorter one's content words (see `descriptionSimilarity`); 0 compares types only.
   */
  sharedParamMinSimilarity: number;
}

/** Defaults: the values live in `workspace/defaults.ts` with every other default. */
export const DEFAULT_THRESHOLDS: Readonly<ComplexityThresholds> = DEFAULT_COMPLEXITY;

/** One problem or piece of advice about a tool, shaped for diagnostics. */
export interface Finding {
  /** Stable code; see {@link FINDING_CODES}. */
  code: FindingCode;
  severity: Severity;
  /** Tool name, or `tools[i]` for a tool-list entry that did not load. */
  tool: string;
  /** Top-level parameter the finding is about, when there is one (its key has a location). */
  param?: string;
  /** What is wrong, then why it matters for agents and generators. */
  message: string;
  /** What is wrong, in one sentence (the editor shows this; the why is on the code's help page). */
  summary: string;
  /** Index into `spec.tools` (and `spec.locations`) of the tool, for placing the finding. */
  toolIndex?: number;
  /** Where an entry that did not load sits in the file (invalid tools have no `locations` entry). */
  location?: SourceRange;
}

/** Metrics of one tool's input schema. */
export interface ToolMetrics {
  name: string;
  /** Top-level parameters (`inputSchema.properties`, after a top-level `$ref`). */
  params: number;
  /** Parameters listed in `required`. */
  required: number;
  /** Parameters not in `required`. */
  optional: number;
  /** `optional / params`, 0 when there are no parameters. */
  optionalRatio: number;
  /** Nesting depth, root object = 1; 0 for a schema that is not an object at all. */
  depth: number;
  /** A `$ref` cycle makes the real depth unbounded; `depth` counts one pass through it. */
  recursive: boolean;
  /** `$ref` keywords in the schema. */
  refs: number;
  /** `anyOf`/`oneOf`/`allOf` keywords in the schema. */
  unions: number;
  /** The input schema is missing, not an object schema, or has an unresolvable `$ref`. */
  broken: boolean;
}

/** A server's complexity profile: the paper's Table 15 row plus per-tool detail and findings. */
export interface ServerProfile {
  name: string;
  source: string;
  /** Number of tools that loaded (entries that did not are counted in `invalidTools`). */
  tools: number;
  /** Tool-list entries that were not tools. */
  invalidTools: number;
  /** Mean top-level parameters per tool (0 with no tools). */
  meanParams: number;
  maxParams: number;
  /** Pooled: optional parameters over all parameters of all tools (0 with none). */
  optionalRatio: number;
  maxDepth: number;
  perTool: ToolMetrics[];
  findings: Finding[];
}

/** A tool's analysis on its own, without the checks that need the other tools. */
export interface ToolAnalysis {
  metrics: ToolMetrics;
  findings: Finding[];
}

/** What the cross-tool checks need to know about one parameter. */
interface ParamInfo {
  name: string;
  /** Content words of its description beyond its own name; absent when undocumented. */
  words?: Set<string>;
  /** Declared value types, `|`-joined, '' when the schema does not say. */
  types: string;
}

interface ToolInspection extends ToolAnalysis {
  params: ParamInfo[];
}

/** A finding: `what` is the one-sentence summary, the code's explanation follows it in `message`. */
export function finding(code: FindingCode, tool: string, what: string, extra: Partial<Finding> = {}): Finding {
  const doc = FINDING_CODES[code];
  return { code, severity: doc.severity, tool, message: `${what} ${doc.explanation}`, summary: what, ...extra };
}

function withDefaults(thresholds: Partial<ComplexityThresholds> | undefined): ComplexityThresholds {
  return { ...DEFAULT_THRESHOLDS, ...thresholds };
}

/** Analyses one tool: metrics plus every finding that does not depend on other tools. */
export function analyzeTool(tool: Tool, thresholds?: Partial<ComplexityThresholds>, toolIndex?: number): ToolAnalysis {
  const { metrics, findings } = inspectTool(tool, withDefaults(thresholds), toolIndex);
  return { metrics, findings };
}

function inspectTool(tool: Tool, limits: ComplexityThresholds, toolIndex: number | undefined): ToolInspection {
  const name = tool.name;
  const findings: Finding[] = [];
  const at = (extra: Partial<Finding> = {}): Partial<Finding> => (toolIndex === undefined ? extra : { toolIndex, ...extra });
  const add = (code: FindingCode, what: string, param?: string): void => {
    findings.push(finding(code, name, what, at(param === undefined ? {} : { param })));
  };

  const refused = refusedName(name);
  if (refused.by.length) add('tool-name-refused', `Tool name "${shownName(name)}" is refused by ${refused.by.join(' and ')}: ${refused.why}.`);
  if (!tool.description?.trim()) add('tool-no-description', `Tool "${shownName(name)}" has no description.`);
  const hints = tool.annotations;
  if (hints?.readOnlyHint === true && hints.destructiveHint === true) {
    add('contradictory-annotations', `Tool "${name}" is annotated both readOnlyHint and destructiveHint.`);
  }

  const metrics: ToolMetrics = {
    name,
    params: 0,
    required: 0,
    optional: 0,
    optionalRatio: 0,
    depth: 0,
    recursive: false,
    refs: 0,
    unions: 0,
    broken: false,
  };
  const params: ParamInfo[] = [];
  const schema = tool.inputSchema;
  if (!isRecord(schema)) {
    metrics.broken = true;
    const what = schema === undefined ? 'has no inputSchema' : `has an inputSchema that is ${describeValue(schema)}, not a schema object`;
    add('broken-schema', `Tool "${name}" ${what}.`);
    return { metrics, findings, params };
  }

  const refs = new RefResolver(schema);
  Object.assign(metrics, countFeatures(schema));
  // A whole-schema `$ref` (e.g. `{$ref: "#/$defs/Args", $defs: …}`) is how some generators emit
  // the argument object; its target is the real root.
  const root: JsonRecord | undefined = typeof schema.$ref === 'string' ? refs.resolve(schema.$ref) : schema;
  const problems: string[] = [];
  if (!root) problems.push(`its top-level $ref "${String(schema.$ref)}" does not resolve`);
  else if (root.type !== 'object' && schema.type !== 'object') {
    problems.push(root.type === undefined ? 'it declares no `type: "object"`' : `its type is ${JSON.stringify(root.type)}, not "object"`);
  }
  const props = root?.properties;
  if (props !== undefined && !isRecord(props)) problems.push('its `properties` is not an object');
  const required = new Set(Array.isArray(root?.required) ? root.required.filter((r): r is string => typeof r === 'string') : []);
  if (root?.required !== undefined && !Array.isArray(root.required)) problems.push('its `required` is not an array');

  const meter = new DepthMeter(refs);
  const propMap = isRecord(props) ? props : {};
  const paramDepth = new Map<string, number>();
  for (const [param, sub] of Object.entries(propMap)) {
    metrics.params++;
    if (required.has(param)) metrics.required++;
    paramDepth.set(param, 1 + meter.depth(sub, param));
    params.push(inspectParam(param, sub, refs, add));
  }
  for (const r of required) {
    if (!Object.prototype.hasOwnProperty.call(propMap, r) && isRecord(props)) {
      problems.push(`it requires "${r}", which is not among its properties`);
    }
  }
  metrics.optional = metrics.params - metrics.required;
  metrics.optionalRatio = metrics.params === 0 ? 0 : metrics.optional / metrics.params;
  metrics.depth = root ? meter.depth(root) : 0;
  metrics.recursive = meter.recursive;

  for (const [ref, param] of refs.unresolved) {
    if (ref === schema.$ref) continue; // already reported as the top-level problem
    findings.push(
      finding(
        'broken-schema',
        name,
        `Tool "${name}" has a $ref "${ref}" that does not resolve within its inputSchema.`,
        at(param === undefined ? {} : { param }),
      ),
    );
  }
  if (problems.length > 0) add('broken-schema', `Tool "${name}" has a broken inputSchema: ${problems.join('; ')}.`);
  patternFindings(schema, propMap, add);
  metrics.broken = problems.length > 0 || refs.unresolved.size > 0;

  for (const f of unsatisfiableFindings(name, schema)) add(f.code, f.what, f.param);

  if (metrics.params > limits.maxParams) {
    add('many-params', `Tool "${name}" takes ${metrics.params} parameters (more than ${limits.maxParams}).`);
  }
  if (metrics.params >= limits.minParamsForOptionalRatio && metrics.optionalRatio > limits.maxOptionalRatio) {
    add(
      'high-optional-ratio',
      `Tool "${name}" has ${metrics.optional} of ${metrics.params} parameters optional (${Math.round(metrics.optionalRatio * 100)}%, above ${Math.round(limits.maxOptionalRatio * 100)}%).`,
    );
  }
  if (metrics.depth > limits.maxDepth) {
    // Point at the parameter that reaches the depth, so the diagnostic lands where to simplify.
    const deepest = [...paramDepth].find(([, d]) => d === metrics.depth)?.[0];
    const via = deepest === undefined ? '' : ` (through "${deepest}")`;
    const rec = metrics.recursive ? ' and recursive' : '';
    add('deep-nesting', `Tool "${name}" has arguments nested ${metrics.depth} levels deep${rec}${via}, more than ${limits.maxDepth}.`, deepest);
  }
  return { metrics, findings, params };
}

/** Longest pattern quoted in a message. */
const MAX_QUOTED_PATTERN = 60;

/**
 * `pattern-unsupported` for each distinct `pattern` or `patternProperties` key the linear-time
 * engine refuses (`util/linearRegex.ts`), placed on the top-level parameter it sits under.
 */
function patternFindings(schema: JsonRecord, props: JsonRecord, add: (code: FindingCode, what: string, param?: string) => void): void {
  const seen = new Set<string>();
  const check = (node: JsonRecord, param: string | undefined): void => {
    const patterns = [
      ...(typeof node.pattern === 'string' ? [node.pattern] : []),
      ...(isRecord(node.patternProperties) ? Object.keys(node.patternProperties) : []),
    ];
    for (const pattern of patterns) {
      if (seen.has(pattern)) continue;
      const compiled = compileLinear(pattern);
      if (compiled.ok) continue;
      seen.add(pattern);
      const quoted = JSON.stringify(pattern.length > MAX_QUOTED_PATTERN ? `${pattern.slice(0, MAX_QUOTED_PATTERN)}…` : pattern);
      const where = param === undefined ? 'The inputSchema' : `Parameter "${param}"`;
      add('pattern-unsupported', `${where} has the pattern ${quoted}, which cannot be evaluated in linear time: ${compiled.reason}.`, param);
    }
  };
  for (const [param, sub] of Object.entries(props)) forEachSubschema(sub, (node) => check(node, param));
  forEachSubschema(schema, (node) => check(node, undefined));
}

/** The top-level parameter a JSON pointer inside an inputSchema lies under, if any. */
function paramOfPointer(pointer: string): string | undefined {
  const m = /^\/properties\/([^/]+)/.exec(pointer);
  return m?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
}

const CONTRADICTION_CODE = { range: 'unsatisfiable-range', 'empty-enum': 'empty-enum', 'const-type': 'const-type-mismatch' } as const;

/**
 * What no value satisfies, or the generator cannot build: a schema too large expanded, a required
 * `$ref` cycle with no base, required nesting past the sampler's cap, contradictory keywords.
 */
function unsatisfiableFindings(name: string, schema: JsonRecord): { code: FindingCode; what: string; param?: string }[] {
  const out: { code: FindingCode; what: string; param?: string }[] = [];
  const tooLarge = schemaExpansion(schema) > MAX_SCHEMA_EXPANSION;
  if (tooLarge) {
    out.push({
      code: 'schema-expansion-budget',
      what: `Tool "${name}" has an inputSchema that expands to more than ${MAX_SCHEMA_EXPANSION} schema nodes once its $refs and anyOf/oneOf/allOf branches are followed.`,
    });
  }
  // Within the budget the schema has at most that many distinct nodes, which bounds the depth's fixed point.
  const depth = tooLarge ? 0 : requiredDepth(schema);
  if (depth > MAX_SAMPLE_DEPTH) {
    // Name the required parameter that carries the depth, so the diagnostic lands on it.
    const props = isRecord(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string' && Object.hasOwn(props, r)) : [];
    const carrier = required.find((r) => 1 + requiredDepth({ ...schema, properties: { [r]: props[r] }, required: [r] }) >= depth);
    const via = carrier ? ` (through "${carrier}")` : '';
    const at = carrier ? { param: carrier } : {};
    if (depth === Infinity) {
      out.push({
        code: 'unsatisfiable-recursion',
        what: `Tool "${name}" requires a value that contains itself${via}: a required $ref cycle with no base case, so no finite value is valid.`,
        ...at,
      });
    } else {
      out.push({
        code: 'required-depth-over-cap',
        what: `Tool "${name}" requires arguments nested ${depth} levels deep${via}, more than the ${MAX_SAMPLE_DEPTH} the offline generator builds.`,
        ...at,
      });
    }
  }
  for (const c of contradictions(schema)) {
    const param = paramOfPointer(c.pointer);
    out.push({
      code: CONTRADICTION_CODE[c.kind],
      what: `Tool "${name}" has a schema no value satisfies at ${c.pointer || '(root)'}: ${c.what}.`,
      ...(param !== undefined ? { param } : {}),
    });
  }
  return out;
}

function inspectParam(param: string, sub: unknown, refs: RefResolver, add: (code: FindingCode, what: string, param?: string) => void): ParamInfo {
  const chain = valueChain(sub, refs);
  const description = firstString(chain, 'description');
  const types = declaredTypes(chain);
  const words = description === undefined ? undefined : contentWords(description, param);
  if (!words || words.size === 0) {
    const what = description === undefined ? 'has no description' : `has only a placeholder description ("${description.trim()}") that restates its name`;
    add('param-no-description', `Parameter "${param}" ${what}.`, param);
  }
  const constrained = chain.some((n) => n.format !== undefined || n.enum !== undefined || n.const !== undefined || n.pattern !== undefined);
  if (types.length === 1 && types[0] === 'string' && !constrained) {
    const hint = structuredStringHint(param, description);
    if (hint) {
      add(
        'free-text-format',
        `Parameter "${param}" looks like it takes ${kindLabel(hint.kind)}, going by ${hint.evidence}, but is a plain string; add ${hint.suggestion}.`,
        param,
      );
    }
  }
  const info: ParamInfo = { name: param, types: types.join('|') };
  if (words && words.size > 0) info.words = words;
  return info;
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

// Words that carry no meaning of their own in a parameter description.
const STOPWORDS = new Set(
  (
    'a an the of to for in on at by with from and or is are be as it its this that these those which ' +
    'will can may must should if when not no use used using e g eg i ie etc default optional required'
  ).split(' '),
);

// Filler that generated descriptions wrap around a parameter's name ("AccountSid parameter").
const FILLER = new Set(['parameter', 'param', 'argument', 'arg', 'value', 'field', 'input']);

const singular = (w: string): string => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);

/**
 * The content words of a parameter's description, crudely singularised, without the words of the
 * parameter's own name or filler: what the description adds to the name. Empty for placeholder
 * descriptions such as "AccountSid parameter" or "Discussion Number" on `discussionNumber`.
 */
export function contentWords(text: string, paramName = ''): Set<string> {
  const own = new Set([...nameTokens(paramName), paramName.toLowerCase()].map(singular));
  const words = new Set<string>();
  for (const raw of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (raw.length < 2 || STOPWORDS.has(raw) || FILLER.has(raw)) continue;
    const w = singular(raw);
    if (!own.has(w)) words.add(w);
  }
  return words;
}

/**
 * How much two descriptions say the same thing: shared content words over the shorter one's
 * (the overlap coefficient). A description that extends another ("Repository owner" /
 * "Repository owner (username or organization)") scores 1; a reworded one ("Repository owner" /
 * "The owner of the repository.") too; "New state" / "Filter alerts by state" scores 0.5.
 */
export function descriptionSimilarity(a: Set<string>, b: Set<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 1; // nothing to contradict
  let shared = 0;
  for (const w of small) if (large.has(w)) shared++;
  return shared / small.size;
}

/** Items to list in a message: the first few, then how many more (only those few are kept). */
class NameList {
  count = 0;
  private readonly shown: string[] = [];
  constructor(private readonly limit = 4) {}
  add(item: string): void {
    if (this.count++ < this.limit) this.shown.push(item);
  }
  text(): string {
    const more = this.count - this.shown.length;
    return more > 0 ? `${this.shown.join(', ')} and ${more} more` : this.shown.join(', ');
  }
}

/**
 * A parameter name is ambiguous for a tool when another tool using the same name declares a
 * different value type, or documents it with a description that shares less than
 * `sharedParamMinSimilarity` of its content words. Undocumented uses contradict nothing (that gap
 * is `param-no-description`), so they are only compared by type.
 */
function sharedParamFindings(inspections: ToolInspection[], limits: ComplexityThresholds): Finding[][] {
  // Uses of a name are grouped by what they declare (types + description words), and groups are
  // compared pairwise: Twilio's `AccountSid` sits in 193 tools but has only a few distinct
  // descriptions, which keeps this linear in practice.
  interface Group {
    types: string;
    words?: Set<string>;
    uses: { toolIndex: number; tool: string }[];
  }
  const byName = new Map<string, Map<string, Group>>();
  inspections.forEach((ins, toolIndex) => {
    for (const param of ins.params) {
      let groups = byName.get(param.name);
      if (!groups) byName.set(param.name, (groups = new Map()));
      const key = `${param.types}\u0000${param.words ? [...param.words].sort().join(' ') : '\u0001'}`;
      let group = groups.get(key);
      if (!group) {
        group = { types: param.types, uses: [] };
        if (param.words) group.words = param.words;
        groups.set(key, group);
      }
      group.uses.push({ toolIndex, tool: ins.metrics.name });
    }
  });
  const out: Finding[][] = inspections.map(() => []);
  for (const [param, groupMap] of byName) {
    const groups = [...groupMap.values()];
    if (groups.length < 2) continue;
    const tools = new Set(groups.flatMap((g) => g.uses.map((u) => u.tool)));
    if (tools.size < Math.max(2, limits.minToolsForSharedParam)) continue;
    // Which groups clash, computed once per pair: 't' type, 'd' description.
    const clash = groups.map((): ('t' | 'd' | undefined)[] => []);
    groups.forEach((g, i) => {
      for (let j = i + 1; j < groups.length; j++) {
        const h = groups[j];
        if (!h) continue;
        let kind: 't' | 'd' | undefined;
        if (g.types && h.types && g.types !== h.types) kind = 't';
        else if (g.words && h.words && descriptionSimilarity(g.words, h.words) < limits.sharedParamMinSimilarity) kind = 'd';
        (clash[i] ?? [])[j] = kind;
        (clash[j] ?? [])[i] = kind;
      }
    });
    groups.forEach((group, i) => {
      const typeClash = new NameList();
      const meaningClash = new NameList();
      groups.forEach((other, j) => {
        const kind = clash[i]?.[j];
        if (kind === 't') for (const u of other.uses) typeClash.add(`"${u.tool}" (${other.types})`);
        else if (kind === 'd') for (const u of other.uses) meaningClash.add(`"${u.tool}"`);
      });
      if (typeClash.count === 0 && meaningClash.count === 0) return;
      // A tool is in one group per name (JSON keys are unique), so the message is the same for all its uses.
      const parts: string[] = [];
      if (typeClash.count > 0) parts.push(`with a different type (here ${group.types}) in ${typeClash.text()}`);
      if (meaningClash.count > 0) parts.push(`with a different description in ${meaningClash.text()}`);
      const what = `Parameter "${param}" also appears ${parts.join(' and ')}.`;
      for (const use of group.uses) {
        out[use.toolIndex]?.push(finding('ambiguous-shared-param', use.tool, what, { param, toolIndex: use.toolIndex }));
      }
    });
  }
  return out;
}

function duplicateNameFindings(tools: Tool[]): Finding[][] {
  const seen = new Map<string, number[]>();
  tools.forEach((t, i) => {
    const list = seen.get(t.name);
    if (list) list.push(i);
    else seen.set(t.name, [i]);
  });
  const out: Finding[][] = tools.map(() => []);
  for (const [name, indices] of seen) {
    if (indices.length < 2) continue;
    for (const i of indices) {
      out[i]?.push(finding('duplicate-tool-name', name, `${indices.length} tools in this spec are named "${name}".`, { toolIndex: i }));
    }
  }
  return out;
}

/**
 * Analyses a whole spec: per-tool metrics, the pooled server profile (Table 15's columns), and
 * findings in tool order, then one `invalid-tool` finding per entry the loader skipped.
 */
export function analyzeSpec(spec: Spec, thresholds?: Partial<ComplexityThresholds>): ServerProfile {
  const limits = withDefaults(thresholds);
  const inspections = spec.tools.map((tool, i) => inspectTool(tool, limits, i));
  const shared = sharedParamFindings(inspections, limits);
  const duplicates = duplicateNameFindings(spec.tools);
  const findings: Finding[] = [];
  inspections.forEach((ins, i) => findings.push(...(duplicates[i] ?? []), ...ins.findings, ...(shared[i] ?? [])));
  for (const bad of spec.invalidTools) {
    const extra: Partial<Finding> = bad.location ? { location: bad.location } : {};
    findings.push(finding('invalid-tool', `tools[${bad.index}]`, `Entry ${bad.index} of the tool list is not a valid tool (${bad.message}).`, extra));
  }

  const perTool = inspections.map((ins) => ins.metrics);
  let params = 0;
  let optional = 0;
  let maxParams = 0;
  let maxDepth = 0;
  for (const m of perTool) {
    params += m.params;
    optional += m.optional;
    maxParams = Math.max(maxParams, m.params);
    maxDepth = Math.max(maxDepth, m.depth);
  }
  return {
    name: spec.name,
    source: spec.source,
    tools: perTool.length,
    invalidTools: spec.invalidTools.length,
    meanParams: perTool.length === 0 ? 0 : params / perTool.length,
    maxParams,
    // Pooled like the paper's Opt%: a server's ratio weights each tool by its parameter count.
    optionalRatio: params === 0 ? 0 : optional / params,
    maxDepth,
    perTool,
    findings,
  };
}
