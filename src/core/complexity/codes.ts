/**
 * The finding codes of the schema-complexity analysis: one table that diagnostics, code actions,
 * the CLI and docs/findings.md all read, so a code means the same thing everywhere.
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
  /** The client's own documentation a client-compatibility finding rests on. */
  source?: string;
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
  'tool-name-refused': {
    severity: 'error',
    title: 'Tool name that OpenAI or Gemini refuse as a function name',
    explanation:
      'A client sends the tool name as the function name, and OpenAI (letters, digits, _ and -, at most 64) and Gemini (also . and :, starting with a letter or _) refuse other names, so the request fails or the tool is dropped or renamed.',
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
  'pattern-unsupported': {
    severity: 'warning',
    title: 'Pattern that cannot be evaluated in linear time',
    explanation:
      'Validators that must not hang on a hostile value (RE2, Go, Rust, and Agent Seer) evaluate patterns in linear time, which rules out backreferences, lookahead and lookbehind and invalid syntax, so this constraint goes unchecked there and arguments that break it are accepted.',
  },
  'contradictory-annotations': {
    severity: 'warning',
    title: 'Annotations say both read-only and destructive',
    explanation: 'Clients use these hints to decide whether to ask before a call, so contradicting hints make that safety decision unreliable.',
  },
  'schema-expansion-budget': {
    severity: 'warning',
    title: 'Schema too large once its $refs and branches are followed',
    explanation:
      'Validators, generators and clients that inline references walk every path of the expanded schema, so a few kilobytes of `$defs` that name each other twice take exponential time and memory; the eval generator skips the tool.',
  },
  'unsatisfiable-recursion': {
    severity: 'error',
    title: 'Required $ref cycle with no base case',
    explanation: 'Every valid value would have to contain another one without end, so no call to the tool can ever be valid and no eval can exercise it.',
  },
  'unsatisfiable-range': {
    severity: 'error',
    title: 'Lower bound above upper bound',
    explanation: 'No value lies between the bounds, so every call that sets this value is rejected and generators cannot produce one.',
  },
  'empty-enum': {
    severity: 'error',
    title: 'Enum with no values',
    explanation: 'An empty `enum` accepts nothing, so every call that sets this value is rejected and agents cannot choose one.',
  },
  'const-type-mismatch': {
    severity: 'error',
    title: 'const or enum values of a type the schema excludes',
    explanation: 'The only allowed values fail the `type` beside them, so no value is valid and every call that sets this value is rejected.',
  },
  'required-depth-over-cap': {
    severity: 'warning',
    title: 'Required nesting deeper than the generator builds',
    explanation:
      'The smallest valid arguments nest deeper than the offline generator builds values, so the tool is skipped when generating evals, and agents rarely reproduce such structures exactly.',
  },
  'gemini-schema': {
    severity: 'warning',
    title: 'Input schema uses keywords Gemini function declarations do not take',
    explanation:
      'Gemini function declarations accept a subset of OpenAPI 3.0 schemas, so a client must rewrite or drop these keywords and the model never sees what they said.',
    source: 'https://ai.google.dev/gemini-api/docs/function-calling',
  },
  'openai-strict-schema': {
    severity: 'info',
    title: 'Input schema cannot be used with OpenAI strict mode',
    explanation:
      'OpenAI strict function calling needs every property required, `additionalProperties: false` on every object and only the supported keywords, so a client that turns strict on has to reject or rewrite this tool.',
    source: 'https://platform.openai.com/docs/guides/function-calling#strict-mode',
  },
  'vscode-tool-limit': {
    severity: 'warning',
    title: 'More tools than VS Code sends in one chat request',
    explanation: 'VS Code refuses a chat request with more than 128 tools enabled, so users must deselect tools of this server before its agent can run.',
    source: 'https://code.visualstudio.com/docs/copilot/agents/agent-tools',
  },
} as const satisfies Record<string, FindingCodeDoc>;

/** The clients whose documented limits `clientFindings` checks. */
export const CLIENT_IDS = ['gemini', 'openai', 'vscode'] as const;

/** A client a user can target (`agentSeer.lint.clients`, `inspect --clients`). */
export type ClientId = (typeof CLIENT_IDS)[number];

/** The finding code each client's check reports. */
export const CLIENT_FINDING_CODE = { gemini: 'gemini-schema', openai: 'openai-strict-schema', vscode: 'vscode-tool-limit' } as const satisfies Record<
  ClientId,
  string
>;

/** VS Code's documented maximum of tools enabled in one chat request (see `vscode-tool-limit`'s source). */
export const VSCODE_MAX_TOOLS_PER_REQUEST = 128;

/** A finding code (a key of {@link FINDING_CODES}). */
export type FindingCode = keyof typeof FINDING_CODES;

/** All codes in documentation order. */
export const FINDING_CODE_LIST = Object.keys(FINDING_CODES) as FindingCode[];

/** Type guard for strings read from settings or files. */
export function isFindingCode(value: string): value is FindingCode {
  return Object.prototype.hasOwnProperty.call(FINDING_CODES, value);
}
