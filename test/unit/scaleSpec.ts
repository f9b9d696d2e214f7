/**
 * Synthetic specs for the scale bench (`bench/scale.ts`) and the scale tests (`core/pipeline/offlineScale.test.ts`): n tools that look
 * like a real server's (verbs over resources, IDs shared across tools, enums, number ranges,
 * optional flags, a nested filter object), and one tool whose parameter is an enum of m values.
 * Deterministic: the same n gives the same spec.
 */

const VERBS = ['get', 'list', 'create', 'update', 'delete', 'search', 'archive', 'export'] as const;
const NOUNS = ['issue', 'project', 'user', 'comment', 'label', 'release', 'invoice', 'ticket', 'deployment', 'dataset', 'report', 'channel'] as const;
const STATES = ['open', 'closed', 'pending', 'archived'] as const;

/** One synthetic tool (index i): a few parameters, some shared by many tools. */
function tool(i: number): Record<string, unknown> {
  const verb = VERBS[i % VERBS.length]!;
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]!;
  const name = `${verb}_${noun}_${i}`;
  const properties: Record<string, unknown> = {
    [`${noun}_id`]: { type: 'string', description: `The ${noun}'s ID.` },
    state: { type: 'string', enum: [...STATES], description: `Only ${noun}s in this state.` },
    limit: { type: 'integer', minimum: 1, maximum: 100, description: 'How many to return.' },
  };
  const required = [`${noun}_id`];
  if (i % 3 === 0) properties.include_archived = { type: 'boolean', description: 'Also archived ones.' };
  if (i % 4 === 1) {
    properties.title = { type: 'string', description: `The ${noun}'s title.` };
    required.push('title');
  }
  if (i % 5 === 2)
    properties.filter = {
      type: 'object',
      description: 'A filter.',
      properties: { owner: { type: 'string', description: 'Owner login.' }, since: { type: 'string', format: 'date' } },
    };
  return {
    name,
    description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${noun} (variant ${i}) by its ID; returns the ${noun}.`,
    inputSchema: { type: 'object', properties, required },
  };
}

/** A spec snapshot (the JSON of a snapshot file) with `tools` synthetic tools. */
export function scaleSpec(tools: number): Record<string, unknown> {
  return { server: { name: `scale-${tools}`, version: '1.0.0' }, tools: Array.from({ length: tools }, (_, i) => tool(i)) };
}

/** A spec of two tools, one of which takes a required parameter that is an enum of `values` strings. */
export function bigEnumSpec(values: number): Record<string, unknown> {
  const codes = Array.from({ length: values }, (_, i) => `code-${String(i).padStart(6, '0')}`);
  return {
    server: { name: `enum-${values}`, version: '1.0.0' },
    tools: [
      {
        name: 'lookup_code',
        description: 'Looks up a product code and returns its record.',
        inputSchema: { type: 'object', properties: { code: { type: 'string', enum: codes, description: 'The product code.' } }, required: ['code'] },
      },
      tool(0),
    ],
  };
}

/**
 * A spec of `tools` tools taken in turn from a real one (a shared fixture's snapshot JSON), the
 * k-th repeat of a name renamed `name_k`: the scale bench at the size and shape of a real server's
 * schemas (long descriptions, nested objects) rather than the synthetic ones above.
 */
export function cycledSpec(snapshot: { tools?: unknown[] }, tools: number, name: string): Record<string, unknown> {
  const source = (snapshot.tools ?? []) as Record<string, unknown>[];
  if (!source.length) throw new Error(`${name} has no tools`);
  return {
    server: { name: `${name}-${tools}`, version: '1.0.0' },
    tools: Array.from({ length: tools }, (_, i) => {
      const k = Math.floor(i / source.length);
      const t = structuredClone(source[i % source.length]!);
      return k ? { ...t, name: `${String(t.name)}_${k}` } : t;
    }),
  };
}
