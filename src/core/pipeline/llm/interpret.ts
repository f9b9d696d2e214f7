/**
 * Stage 1 with a model: one request per tool for the paper's semantic fields, cached by the
 * tool's hash (an unchanged tool is never interpreted twice, whatever else changed). A tool the
 * model cannot describe after the re-asks, or whose request failed in transport, gets no
 * interpretation: scenario prompts show its own description, the item counts as discarded or
 * failed, and records that use the tool say `none` for the stage. Only a run that asked for the
 * offline fallback fills it with the offline interpretation (counted, and named in the
 * provenance of records that use the tool).
 */
import { toolHash } from '../../harness/hash';
import type { Tool } from '../../spec/model';
import { interpretOffline } from '../offline';
import { LlmToolInterpretation, type ToolInterpretation } from '../schemas';
import { ask } from './ask';
import { count, isTransportFailure, repaired, settle, STAGES, PRIORITY, type StageContext } from './context';

/** Longest tool definition sent as is; longer ones lose their parameter descriptions. */
const MAX_TOOL_JSON = 24_000;

/** The tool as shown to the model: name, description, schemas and annotations, within a size limit. */
export function toolJsonForPrompt(tool: Tool): string {
  const shown = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations ?? undefined,
  };
  let text = JSON.stringify(shown, null, 2);
  if (text.length > MAX_TOOL_JSON) {
    // Parameter descriptions are what make huge schemas huge; names and types are what matter.
    const strip = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(strip)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .filter(([k]) => k !== 'description' && k !== 'examples')
                .map(([k, x]) => [k, strip(x)]),
            )
          : v;
    text = JSON.stringify({ ...shown, inputSchema: strip(tool.inputSchema), outputSchema: strip(tool.outputSchema) });
    if (text.length > MAX_TOOL_JSON) text = `${text.slice(0, MAX_TOOL_JSON)}…`;
  }
  return text;
}

/** The outcome of interpreting one tool. */
export interface InterpretOutcome {
  /** Absent when the request failed in transport (`source: 'none'`). */
  interpretation: ToolInterpretation | undefined;
  /** `'llm'`, `'offline'` (the asked-for fallback after invalid replies) or `'none'` (discarded, or lost in transport). */
  source: 'llm' | 'offline' | 'none';
  version: string;
}

/** Interprets one tool (never rejects but on run-stopping faults; see {@link InterpretOutcome}). */
export async function interpretTool(ctx: StageContext, tool: Tool): Promise<InterpretOutcome> {
  const rendered = ctx.prompts.render('interpret', { tool_json: toolJsonForPrompt(tool) });
  const outcome = await ask(ctx, {
    stage: STAGES.interpret,
    request: {
      priority: PRIORITY.interpret,
      stage: STAGES.interpret,
      promptVersion: rendered.version,
      prompt: rendered.text,
      schema: LlmToolInterpretation,
      cacheInputs: { tool: toolHash(tool) },
    },
    check: () => [],
    // The name is the code's, never the model's.
    accept: (value): ToolInterpretation => ({ tool_name: tool.name, ...value, enterprise_context: value.enterprise_context.slice(0, 8) }),
  });
  count(ctx, outcome.counts);
  settle(ctx, STAGES.interpret, outcome, ctx.fallback === 'offline' ? 'offline' : 'discarded');
  if (outcome.ok) return { interpretation: outcome.value, source: 'llm', version: rendered.version };
  if (isTransportFailure(outcome.reason) || ctx.fallback !== 'offline') return { interpretation: undefined, source: 'none', version: rendered.version };
  repaired(ctx, `${STAGES.interpret}:offline-fallback`);
  return { interpretation: interpretOffline(ctx.spec, tool), source: 'offline', version: rendered.version };
}
