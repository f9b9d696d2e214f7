/**
 * Stage 1, offline: a tool interpretation assembled from the spec itself: what the tool does
 * from its description (or its name when it has none), what it needs from its parameters, why
 * it is used from its verb and entity, and tags from entity, verb and annotations.
 */
import type { Spec, Tool } from '../../spec/model';
import { typeList } from '../../checks/jsonSchemaUtil';
import type { ToolInterpretation } from '../schemas';
import { analysisOf } from './scenarios';
import { taskPhrase } from './text';
import { firstSentence, plural, type ToolInfo } from './toolInfo';

const PURPOSE: Record<ToolInfo['verbClass'], string> = {
  discover: 'find the right {things} before working on one, or to answer questions about what exists',
  read: 'look up the current state of a {thing} so later steps or answers use real data',
  create: 'add a new {thing} as part of a workflow',
  update: 'change an existing {thing} once it has been identified',
  delete: 'remove a {thing} that is no longer needed (a destructive step that should be confirmed)',
  action: 'carry out an operation on behalf of the user',
};

function describeParam(p: ToolInfo['params'][number]): string {
  const types = typeList(p.schema);
  const type = types.length ? types.join('|') : Array.isArray(p.schema.enum) ? 'enum' : 'any';
  const enumText = Array.isArray(p.schema.enum)
    ? ` one of ${p.schema.enum
        .slice(0, 6)
        .map((v) => JSON.stringify(v))
        .join(', ')}`
    : '';
  const format = typeof p.schema.format === 'string' ? `, ${p.schema.format}` : '';
  const desc = p.description ? `: ${firstSentence(p.description, 140)}` : '';
  return `${p.name} (${type}${format}${p.required ? ', required' : ''})${enumText}${desc}`;
}

/** Stage 1 offline for one tool of the spec. */
export function interpretOffline(spec: Spec, tool: Tool): ToolInterpretation {
  const analysis = analysisOf(spec);
  const info = analysis.tools.find((t) => t.tool === tool) ?? analysis.byName.get(tool.name);
  const description = (tool.description ?? '').replace(/\s+/g, ' ').trim();
  if (!info) {
    return { tool_name: tool.name, what_it_does: description || tool.name, what_it_needs: 'unknown', why_its_used: 'unknown', enterprise_context: [] };
  }
  const whatItDoes = description
    ? description.length > 600
      ? `${description.slice(0, 599)}…`
      : description
    : `Presumably ${taskPhrase(info)} (the tool has no description).`;
  const required = info.params.filter((p) => p.required);
  const optional = info.params.filter((p) => !p.required);
  let needs: string;
  if (info.broken) needs = `Its input schema is unusable (${info.broken}); no parameters can be relied on.`;
  else if (!info.params.length) needs = 'No parameters.';
  else {
    const shown = [...required, ...optional.slice(0, Math.max(0, 10 - required.length))];
    needs = `${shown.map((p) => describeParam(p)).join('; ')}${info.params.length > shown.length ? `; and ${info.params.length - shown.length} more optional parameter(s)` : ''}.`;
  }
  const thing = info.label || 'item';
  const why = `To ${PURPOSE[info.verbClass].replace('{things}', plural(thing)).replace('{thing}', thing)}; e.g. ${taskPhrase(info)}.`;
  const tags = new Set<string>();
  if (info.label) tags.add(`${info.label} management`);
  if (spec.server?.name) tags.add(spec.server.name);
  tags.add(info.phase === 'read' ? 'read-only lookup' : info.destructive ? 'destructive change' : 'state change');
  if (info.tool.annotations?.openWorldHint) tags.add('external systems');
  return { tool_name: tool.name, what_it_does: whatItDoes, what_it_needs: needs, why_its_used: why, enterprise_context: [...tags] };
}
