/**
 * The finding codes of the schema-complexity analysis: one table that diagnostics, code actions,
 * the CLI and the README all read, so a code means the same thing everywhere.
 */

/** How much a finding matters: `error` breaks the tool for clients, `warning` hurts agents, `info` is advice. */
export type Severity = 'error' | 'warning' | 'info';

/** What the docs and messages say about one finding code. */
export interface FindingCodeDoc {
  /** Severity every finding with this code gets. */
  severity: Severity;
  /** Short title for tables and hover headers. */
  title: string;
  /** One sentence: why it matters for agents and for eval generators. Appended to each message. */
  explanation: string;
}

/** Every finding code, in the order the docs list them. Stable: codes are referred to by settings and docs. */
export const FINDING_CODES = {
  'invalid-tool': {
    severity: 'error',
    title: 'Entry in the tool list is not a tool',
    explanation: 'Clients skip or reject an entry without a valid name and shape, so agents never see the tool and no eval can exercise it.',
  },
  'broken-schema': {
    severity: 'error',
    title: 'Input schema missing, not an object schema, or with an unresolvable $ref',
    explanation:
      'Without a usable object schema clients may refuse the tool and agents must guess every argument, and generated calls cannot be checked against it.',
  },
  'duplicate-tool-name': {
    severity: 'error',
    title: 'Two tools share a name',
    explanation: 'Agents call tools by name, so one of them is shadowed or rejected by the client and calls to it land on the other.',
  },
  'tool-no-description': {
    severity: 'warning',
    title: 'Tool without a description',
    explanation: 'The description is the main text an agent reads to choose a tool, so without it selection falls back to guessing from the name.',
  },
  'many-params': {
    severity: 'warning',
    title: 'Many parameters',
    explanation:
      'The paper found parameter density, not tool count, degrades tool-calling quality (r = -0.60 per server; Git, at 11.2 parameters per tool, had the lowest argument score), so every extra parameter is another value agents and generators get wrong.',
  },
  'high-optional-ratio': {
    severity: 'warning',
    title: 'Mostly optional parameters',
    explanation:
      'The paper found the optional-parameter ratio to be the strongest schema predictor of lower tool-calling quality (r = -0.66), because agents omit optional arguments the task implies or fill ones it does not.',
  },
  'deep-nesting': {
    severity: 'warning',
    title: 'Deeply nested arguments',
    explanation:
      'Every nested level is structure the agent must reproduce exactly inside one argument, compounding the argument errors the paper found to be the dominant failure mode.',
  },
  'param-no-description': {
    severity: 'warning',
    title: 'Parameter without a description',
    explanation:
      "Without a description the agent infers the value's meaning and format from the name alone, and argument-value accuracy is the paper's dominant failure mode.",
  },
  'free-text-format': {
    severity: 'info',
    title: 'Structured value typed as a free string',
    explanation:
      'A bare string accepts anything, so the agent must guess the expected format and no validator catches a wrong one; a `format`, `enum` or `pattern` makes the contract checkable.',
  },
  'ambiguous-shared-param': {
    severity: 'warning',
    title: 'Parameter name with different meanings across tools',
    explanation:
      "The paper traced Git's lowest argument score to `ref` meaning different things in seven tools: an agent carries a name's meaning from one tool to the next.",
  },
  'contradictory-annotations': {
    severity: 'warning',
    title: 'Annotations say both read-only and destructive',
    explanation: 'Clients use these hints to decide whether to ask before a call, so contradicting hints make that safety decision unreliable.',
  },
} as const satisfies Record<string, FindingCodeDoc>;

/** A finding code (a key of {@link FINDING_CODES}). */
export type FindingCode = keyof typeof FINDING_CODES;

/** All codes in documentation order. */
export const FINDING_CODE_LIST = Object.keys(FINDING_CODES) as FindingCode[];

/** Type guard for strings read from settings or files. */
export function isFindingCode(value: string): value is FindingCode {
  return Object.prototype.hasOwnProperty.call(FINDING_CODES, value);
}
