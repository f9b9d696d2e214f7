/**
 * Hostile tool specs built in code (issue 18, items 2, 3 and 9), shared by the CLI tests and
 * `bench/hostileSchema.ts`, `bench/hostile.ts`: nothing here is a file in the fixtures.
 */

const object = (properties: object, required: string[]): object => ({ type: 'object', properties, required });
const getNote = {
  name: 'get_note',
  description: 'Get a note by id.',
  inputSchema: object({ note_id: { type: 'string', description: 'The note.' } }, ['note_id']),
};

/**
 * Thirty `$defs`, each an `anyOf` of the next one and an object holding the next one: 3.9 KB of
 * JSON whose every path through the branches is a different value, 2^30 of them.
 */
export function anyOfChainSpec(length = 30): object {
  const defs: Record<string, object> = {};
  for (let i = 0; i < length; i++) {
    const next = i + 1 < length ? { $ref: `#/$defs/n${i + 1}` } : { type: 'string' };
    defs[`n${i}`] = { anyOf: [next, object({ v: next }, ['v'])] };
  }
  return {
    tools: [
      getNote,
      {
        name: 'walk_chain',
        description: 'Walk a chain.',
        inputSchema: { type: 'object', $defs: defs, properties: { start: { $ref: '#/$defs/n0' } }, required: ['start'] },
      },
    ],
  };
}

/** One tool per unsatisfiable kind (and one too deep for the sampler), beside an ordinary tool. */
export function unsatisfiableSpec(): object {
  let deep: object = { type: 'string' };
  for (let i = 0; i < 200; i++) deep = object({ inner: deep }, ['inner']);
  const one = (name: string, schema: object): object => ({ name, description: `Tool ${name}.`, inputSchema: object({ x: schema }, ['x']) });
  return {
    tools: [
      getNote,
      {
        name: 'walk_cycle',
        description: 'Walk a cycle.',
        inputSchema: {
          type: 'object',
          $defs: { node: object({ next: { $ref: '#/$defs/node' } }, ['next']) },
          properties: { x: { $ref: '#/$defs/node' } },
          required: ['x'],
        },
      },
      one('deep_config', deep),
      one('set_minimum', { type: 'number', minimum: 10, maximum: 1 }),
      one('set_exclusive', { type: 'number', exclusiveMinimum: 5, exclusiveMaximum: 5 }),
      one('set_integer', { type: 'integer', minimum: 1.2, maximum: 1.8 }),
      one('set_length', { type: 'string', minLength: 10, maxLength: 2 }),
      one('set_items', { type: 'array', items: { type: 'string' }, minItems: 5, maxItems: 1 }),
      one('set_props', { type: 'object', minProperties: 3, maxProperties: 1 }),
      one('set_enum', { type: 'string', enum: [] }),
      one('set_const', { type: 'string', const: 3 }),
      one('set_enum_type', { type: 'integer', enum: ['a', 'b'] }),
    ],
  };
}

/** V8 needs about 2^34 steps to reject this against `^(a+)+$` (over 90 s measured); a linear engine, microseconds. */
export const HOSTILE_VALUE = `${'a'.repeat(34)}!`;

/** One tool whose string parameter has a catastrophic `pattern` (issue 18, item 2). */
export const REDOS_SPEC = {
  server: { name: 'redos', version: '1' },
  tools: [
    {
      name: 'find_code',
      description: 'Finds a code by its value.',
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'string', description: 'The code to look up, letters only.', pattern: '^(a+)+$' } },
        required: ['code'],
      },
    },
  ],
};
