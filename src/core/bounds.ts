/**
 * Upper bounds on everything a spec, a harness file or a flag controls. A hostile or mistaken
 * input (a 300 MB file, `minLength: 300000`, `--simple 100000000`) must end in a one-line
 * refusal or a recorded skip, never in a hang or an out-of-memory crash of the extension host.
 * Every such limit lives here, so a reviewer sees them side by side.
 */

/** Largest file read as a spec, config, manifest, record or examples file (64 MiB). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * Longest string the offline sampler builds. Real tool arguments are short; a schema that
 * requires more makes its tool skipped with a reason rather than called with a huge value.
 */
export const MAX_SAMPLE_STRING = 10_000;

/** Most items the offline sampler puts in one array (a schema requiring more is skipped, as above). */
export const MAX_SAMPLE_ITEMS = 1_000;

/**
 * Most values (strings, numbers, items, properties…) sampled for one argument object or mock
 * output: bounds nesting that multiplies (`minItems: 1000` inside `minItems: 1000`).
 */
export const MAX_SAMPLE_VALUES = 20_000;

/**
 * Deepest level the offline sampler builds a value at (the arguments object is level 0); below
 * it a value is left out. A schema whose smallest valid value nests deeper (a required chain of
 * 200 objects) makes its tool skipped with the reason, and `inspect` reports `required-depth-over-cap`.
 */
export const MAX_SAMPLE_DEPTH = 12;

/** Most exact argument failures a report lists per server (the rest are counted, not listed). */
export const MAX_REPORT_FAILURES = 200;

/**
 * Largest magnitude the offline sampler picks a number from when a schema's bounds are wider
 * (many schemas bound integers by the safe-integer range, which says "any", not "huge"). A
 * schema whose own bounds lie beyond it still gets a value inside them.
 */
export const MAX_SAMPLE_MAGNITUDE = 1e13;

/** Maxima of the numeric options of the CLI (and of the same settings in the editor). */
export const MAX_OPTION = {
  /** Scenarios requested per tier (`--simple`, `--complex`). */
  scenarios: 10_000,
  /** Requests or records in flight (`--concurrency`). */
  concurrency: 256,
  /** Requests per minute (`--rpm`). */
  rpm: 1_000_000,
  /** Bootstrap resamples (`--resamples`): ten times the paper's B = 10,000. */
  resamples: 100_000,
  /** Seconds to wait for a server (`snapshot --timeout`): a day; Node timers overflow past ~24.8 days and fire at once. */
  timeoutSeconds: 86_400,
  /**
   * Seconds an LLM request may wait for an answer (`--request-timeout`): 30 minutes, the OpenAI
   * client's own backstop timeout (`llm/openai.ts`), which would otherwise end it first.
   */
  requestTimeoutSeconds: 1_800,
} as const;

/**
 * Largest server source file located for tool definitions (2 MiB): hand-written servers are far
 * smaller; bigger files are generated or bundled code, not worth parsing on every save.
 */
export const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/** Most specs in one corpus run (`generate` over several files or a folder); more is refused, not run for days. */
export const MAX_CORPUS_SPECS = 1_000;

/** Most source files the `workspace` lint scope reads in one pass. */
export const MAX_WORKSPACE_SOURCES = 2_000;

/**
 * Most compiled `pattern`s kept for reuse (`util/linearRegex.ts`); past it the cache starts
 * over, so a spec with a million distinct patterns costs time, not memory.
 */
export const MAX_CACHED_PATTERNS = 10_000;

/**
 * Most nodes the offline sampler visits to build one string from a `pattern` (characters,
 * groups and repetitions, `pipeline/offline/regexSample.ts`): empty groups repeated inside
 * repetitions emit nothing yet would loop without end otherwise.
 */
export const MAX_PATTERN_SAMPLE_STEPS = 4 * MAX_SAMPLE_STRING;

/**
 * Largest body of one synchronous LLM reply read (bytes), success or error. A structured reply
 * of the largest output any model gives (65,536 tokens) is well under 1 MB; a server that sends
 * more is misbehaving, and a 300 MB body was once held whole (2.38 GB of memory). Reading stops
 * at this size and the call fails (retried, and counted toward the outage stop, like a 5xx).
 * Batch result files are not under it: they hold many replies.
 */
export const MAX_LLM_REPLY_BYTES = 8 * 1024 * 1024;

/**
 * Most schema nodes one tool's `inputSchema` (or `outputSchema`) may expand to once its `$ref`s
 * are inlined and its `anyOf`/`oneOf`/`allOf` branches followed (`checks/schemaExpansion.ts`).
 * The largest fixture tool (Twilio's CreateStream) expands to 206 nodes; a chain of thirty
 * `$defs` each holding the next one twice expands to 2^30. Past it the tool is skipped with the
 * reason and `inspect` reports `schema-expansion-budget`.
 */
export const MAX_SCHEMA_EXPANSION = 10_000;
