/**
 * The data blocks of the judge prompts (transcript, facts, tool catalog and schemas, reference),
 * rendered as plain text and spliced into the templates of `prompts/` by the prompt library.
 * Everything from the spec or the record is data: it is inserted verbatim, never re-rendered.
 */
import { findTool } from '../checks/validateCall';
import type { Spec } from '../spec/model';
import type { JudgeView, ViewFacts } from './view';

/** Longest tool output shown per call (characters); outputs are clipped beyond it. */
export const MAX_OUTPUT_CHARS = 1500;
/** Longest inputSchema shown per tool. */
export const MAX_SCHEMA_CHARS = 4000;
/** Most tools listed in the catalog. */
export const MAX_CATALOG_TOOLS = 300;

const clip = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max)} …[${s.length - max} more characters]`);
const json = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return String(v);
  }
};
const quote = (v: unknown): string => clip(json(v), 120);

/** `Turn k: n calls (call a, call b); …` plus what to score, for the TC prompt. */
export function tcTurnPlan(view: JudgeView): string {
  return view.turns
    .map((t) => {
      const n = t.calls.length;
      const list = n ? ` (${t.calls.map((c) => `call ${c}`).join(', ')})` : '';
      const what = n >= 2 ? 'score ordering and arguments' : n === 1 ? 'ordering null (one call); score arguments' : 'ordering and arguments null (no calls)';
      return `- Turn ${t.index}: ${n} call${n === 1 ? '' : 's'}${list}; ${what}.`;
    })
    .join('\n');
}

/** Which turns have history, for the coherence prompt. */
export function cohTurnPlan(view: JudgeView): string {
  return view.turns
    .map((t) => `- Turn ${t.index}: ${t.index === 0 ? 'first turn, no history: context_retention null' : 'has earlier turns: score context_retention'}.`)
    .join('\n');
}

/** Catalogs by spec object: every record of a harness shows the same one (a 197-tool catalog rendered per record was a third of a judge estimate). */
const catalogs = new WeakMap<Spec, string>();

/** One line per tool: name and the first sentence of its description. */
export function toolCatalog(spec: Spec): string {
  let text = catalogs.get(spec);
  if (text === undefined) catalogs.set(spec, (text = renderCatalog(spec)));
  return text;
}

function renderCatalog(spec: Spec): string {
  const lines = spec.tools.slice(0, MAX_CATALOG_TOOLS).map((t) => {
    const d = (t.description ?? '').replace(/\s+/g, ' ').trim();
    const first = /^(.{20,}?[.!?])\s/.exec(d)?.[1] ?? d;
    return `- ${t.name}: ${clip(first, 160) || '(no description)'}`;
  });
  if (spec.tools.length > MAX_CATALOG_TOOLS) lines.push(`- … and ${spec.tools.length - MAX_CATALOG_TOOLS} more tools`);
  return lines.join('\n') || '(the server lists no tools)';
}

/** Description and inputSchema of every named tool the spec has; unknown names are said to be unknown. */
export function toolSchemas(spec: Spec, names: readonly string[]): string {
  const blocks: string[] = [];
  for (const name of [...new Set(names)]) {
    const tool = findTool(spec, name);
    if (!tool) {
      blocks.push(`## ${name}\n(no tool of this name exists on the server)`);
      continue;
    }
    blocks.push(
      [`## ${tool.name}`, (tool.description ?? '(no description)').trim(), `inputSchema: ${clip(json(tool.inputSchema ?? {}), MAX_SCHEMA_CHARS)}`].join('\n'),
    );
  }
  return blocks.join('\n\n') || '(no tools are called)';
}

/** The conversation with calls, outputs and replies. */
export function transcript(view: JudgeView, options: { outputs?: boolean } = {}): string {
  const showOutputs = options.outputs ?? true;
  return view.turns
    .map((t) => {
      const lines = [`=== Turn ${t.index} ===`, `User: ${t.prompt}`];
      if (t.calls.length) {
        lines.push(view.mode === 'oracle' ? 'Agent calls:' : 'Assistant calls:');
        for (const i of t.calls) {
          const c = view.calls[i];
          if (!c) continue;
          lines.push(`  [call ${c.index}] ${c.name} ${json(c.arguments)}`);
          if (showOutputs) lines.push(`    returned: ${c.hasOutput ? clip(json(c.output), MAX_OUTPUT_CHARS) : '(not recorded)'}`);
        }
      } else lines.push('(no tool calls in this turn)');
      lines.push(`${view.mode === 'oracle' ? 'Agent' : 'Assistant'} reply: ${t.response.trim() || '(no reply)'}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

/** The reference workflow of oracle mode, turn by turn. */
export function referenceText(view: JudgeView): string {
  const ref = view.reference;
  if (!ref) return '(none)';
  return ref.turns
    .map((t, ti) => {
      const lines = [`=== Turn ${ti} ===`, 'Expected calls:'];
      for (const i of t.calls) {
        const c = ref.calls[i];
        if (!c) continue;
        lines.push(`  [reference call ${c.index}] ${c.name} ${json(c.arguments)}${c.explanation ? ` (why: ${c.explanation})` : ''}`);
        if (c.hasOutput) lines.push(`    returns: ${clip(json(c.output), MAX_OUTPUT_CHARS)}`);
      }
      if (!t.calls.length) lines.push('  (none)');
      lines.push(`Expected reply: ${t.response.trim() || '(none given)'}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

/** The exact facts, turn by turn, as the judge is told them. */
export function factsText(view: JudgeView, facts: ViewFacts): string {
  const out: string[] = [];
  for (const t of view.turns) {
    const lines: string[] = [`Turn ${t.index}:`];
    for (const i of t.calls) {
      const f = facts.calls[i];
      if (!f) continue;
      const head = `  call ${i} ${f.name}:`;
      if (f.tool === 'unknown') {
        lines.push(`${head} ${f.errors[0]?.message ?? 'unknown tool'}; no tool of this name exists, so its arguments cannot be checked.`);
        continue;
      }
      if (f.tool === 'uncheckable') {
        lines.push(`${head} the tool's schema cannot be compiled, so its arguments were not checked.`);
        continue;
      }
      const problems: string[] = [
        ...f.missingRequired.map((p) =>
          p === '(arguments)'
            ? "the arguments satisfy none of the schema's alternatives (a required combination is missing)"
            : `missing required parameter '${p}'`,
        ),
        ...f.misnamed.map((m) => `'${m.param}' is not a parameter of this tool; the schema's name is '${m.suggestion}' (a wrong parameter name)`),
        ...f.extra.map((p) => `'${p}' is not defined by the schema (an extra parameter)`),
        ...f.errors.filter((e) => e.kind === 'type').map((e) => `type error: ${e.message}`),
        ...f.errors
          .filter((e) => e.kind === 'enum' || e.kind === 'format' || (e.kind === 'other' && e.param !== undefined))
          .map((e) => `format error: ${e.message}`),
      ];
      lines.push(
        problems.length
          ? `${head} ${problems.join('; ')}.`
          : `${head} passes every schema check (required parameters present, names exact, types, enums and formats valid, no extra parameters).`,
      );
    }
    if (!t.calls.length) lines.push('  (no calls)');
    const chained = facts.chained.filter((c) => t.calls.includes(c.callIndex));
    if (chained.length) {
      lines.push('  Chained values (grounded: they occur in an earlier tool output, do not penalise them):');
      for (const c of chained.slice(0, 30)) lines.push(`    call ${c.callIndex} '${c.param}' = ${quote(c.value)} occurs in the output of call ${c.fromCall}`);
    }
    const ungrounded = facts.ungrounded.filter((u) => t.calls.includes(u.callIndex));
    if (ungrounded.length) {
      lines.push(
        "  Ungrounded values (found neither in the user's messages so far, nor in any earlier output, nor in the parameter's schema: value accuracy fails for them):",
      );
      for (const u of ungrounded.slice(0, 30)) lines.push(`    call ${u.callIndex} '${u.param}' = ${quote(u.value)} (${u.class})`);
    }
    const a = facts.alignments?.[t.index];
    if (a && view.reference) {
      const ref = view.reference;
      lines.push('  Alignment with the reference:');
      for (const p of a.pairs) {
        const diffs = [
          ...p.different.map((d) => `'${d.param}' is ${quote(d.actual)}, the reference has ${quote(d.expected)}`),
          ...p.missing.map((m) => `'${m}' is not passed (the reference passes it)`),
          ...p.extra.map((m) => `'${m}' is passed (the reference does not)`),
        ];
        lines.push(
          `    call ${p.actual} matches reference call ${p.expected} (${view.calls[p.actual]?.name})${diffs.length ? `; ${diffs.join('; ')}` : '; same arguments'}`,
        );
      }
      for (const i of a.unmatchedActual) lines.push(`    call ${i} '${view.calls[i]?.name}' has no counterpart in the reference for this turn`);
      for (const i of a.unmatchedExpected) lines.push(`    reference call ${i} '${ref.calls[i]?.name}' was never made by the agent`);
    }
    out.push(lines.join('\n'));
  }
  return out.join('\n');
}
