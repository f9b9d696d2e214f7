/**
 * The offline generator over every real spec of the fixture corpus: coverage, schema-valid
 * arguments (rechecked here, not trusted from the record), referential integrity, valid mock
 * outputs, turn splits, determinism; plus the per-stage functions on their own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { HarnessRecord } from '../../../../src/core/harness/format';
import { checkIntegrity, idLikeValues, schemaLiterals } from '../../../../src/core/checks/integrity';
import {
  callability,
  generateOffline,
  interpretOffline,
  OFFLINE_MODEL,
  mockOffline,
  scenariosOffline,
  turnsOffline,
  type OfflineResult,
} from '../../../../src/core/pipeline/offline';
import { exclusions } from '../../../../src/core/pipeline/offline/sampler';
import { analysisOf } from '../../../../src/core/pipeline/offline/scenarios';
import { descriptionPhrase } from '../../../../src/core/pipeline/offline/text';
import { ScenarioBatch, ToolInterpretation, type Scenario } from '../../../../src/core/pipeline/schemas';
import { checkTurns } from '../../../../src/core/checks/turns';
import { findTool, validateCall, validateOutput } from '../../../../src/core/checks/validateCall';
import type { Spec } from '../../../../src/core/spec/model';
import { fixtureSpecFiles, loadFixtureSpec } from '../../fixturePaths';

const files = fixtureSpecFiles();

const loadSpec = loadFixtureSpec;

const specs = new Map(files.map((f) => [f, loadSpec(f)]));
const OPTIONS = { seed: 1, simple: 6, complex: 4 };

// One pass over the corpus; the per-spec tests below inspect its results (speed is bench/'s business).
const results = new Map<string, OfflineResult>([...specs].map(([f, s]) => [f, generateOffline(s, OPTIONS)]));

test('the corpus is all there', () => {
  assert.equal(files.length, 32);
});

for (const file of files) {
  test(`offline harness for ${file}`, () => {
    const spec = specs.get(file)!;
    const result = results.get(file)!;
    const { records, manifestCounts: counts } = result;

    // Coverage: every tool appears, except documented skips (none of the fixtures needs one).
    const skippedNames = new Set(result.skipped.map((s) => s.tool));
    for (const s of result.skipped) assert.ok(s.reason.length > 10, `${s.tool}: reason`);
    const used = new Set(records.flatMap((r) => r.expected_tools.map((c) => c.name)));
    for (const tool of spec.tools) assert.ok(used.has(tool.name) || skippedNames.has(tool.name), `${tool.name} is neither covered nor skipped`);
    assert.deepEqual(result.skipped, [], 'no fixture tool needs skipping');
    assert.equal(counts.coverage.ratio, 1);
    assert.deepEqual(counts.coverage.uncovered, []);
    assert.equal(counts.records, records.length);
    assert.ok(counts.byTier.simple >= OPTIONS.simple && counts.byTier.complex >= OPTIONS.complex, JSON.stringify(counts.byTier));

    const ids = new Set<string>();
    for (const record of records) {
      const where = `${file} ${record.id}`;
      assert.deepEqual(HarnessRecord.parse(record), record, `${where}: valid format`);
      assert.ok(!ids.has(record.id), `${where}: unique id`);
      ids.add(record.id);
      assert.equal(record.provenance.provider, 'offline');
      assert.equal(record.provenance.seed, OPTIONS.seed);
      assert.equal(record.mock_outputs.length, record.expected_tools.length);

      // Tiers: simple = 1–2 calls, complex = 3+ (across tools when the spec has 3+).
      const n = record.expected_tools.length;
      if (record.tier === 'simple') assert.ok(n >= 1 && n <= 2, `${where}: ${n} calls`);
      else {
        assert.ok(n >= 3, `${where}: ${n} calls`);
        if (spec.tools.length >= 3) assert.ok(new Set(record.expected_tools.map((c) => c.name)).size >= 2, `${where}: one tool only`);
      }

      // Arguments: rechecked with the validator, not read from record.checks.
      record.expected_tools.forEach((call, i) => {
        const v = validateCall(spec, call);
        assert.ok(v.ok, `${where} call ${i} ${call.name}: ${JSON.stringify(v.errors)}`);
        assert.equal(record.mock_outputs[i]?.name, call.name);
        const tool = findTool(spec, call.name)!;
        const out = validateOutput(tool, record.mock_outputs[i]?.output);
        if (out) {
          assert.ok(out.ok, `${where} output ${i}: ${out.errors.join('; ')}`);
          // Table 9: a schema is not an example; the offline generator has no examples, so its tier is low and the schema is recorded apart.
          assert.equal(record.mock_outputs[i]?.outputSchema, true);
        }
        assert.equal(record.mock_outputs[i]?.grounding, 'low');
        assert.equal(record.mock_outputs[i]?.outputSchema, tool.outputSchema !== undefined && tool.outputSchema !== null);
      });

      // Referential integrity, single-turn and (when present) multi-turn.
      const outputs = record.mock_outputs.map((m) => m.output);
      assert.deepEqual(checkIntegrity({ calls: record.expected_tools, outputs, prompt: record.prompt, spec }), [], `${where}: integrity`);
      if (record.conversation.length) {
        assert.deepEqual(
          checkIntegrity({ calls: record.expected_tools, outputs, prompt: record.prompt, turns: record.conversation, spec }),
          [],
          `${where}: turn integrity`,
        );
        const turns = checkTurns(record.conversation, record.expected_tools, spec);
        assert.ok(turns.ok, `${where}: ${JSON.stringify(turns.problems)}`);
        assert.ok(record.conversation.length >= 2);
        assert.equal(record.tier, 'complex');
      }

      // The record's own checks agree.
      assert.equal(record.checks.schemaValid, true);
      assert.deepEqual(record.checks.unknownTools, []);
      assert.deepEqual(record.checks.integrityViolations, []);
      assert.deepEqual(record.checks.turnProblems, []);
      assert.notEqual(record.checks.mockOutputsValid, false);
      // A tool without parameters is asked for in a few words ("Please push a file.").
      assert.ok(record.prompt.length > 12 && record.expected_response.length > 10);
    }
  });
}

test('the broken GitLab snapshot: tools declaring no parameters are called with {}, and those calls validate', () => {
  const spec = specs.get('gitlab-broken-empty-schemas.json')!;
  const { records, skipped } = results.get('gitlab-broken-empty-schemas.json')!;
  assert.deepEqual(skipped, []);
  const calls = records.flatMap((r) => r.expected_tools);
  assert.ok(calls.length >= spec.tools.length);
  for (const c of calls) assert.deepEqual(c.arguments, {});
  // …while anything else would be an invented parameter.
  assert.equal(validateCall(spec, { name: 'create_issue', arguments: { title: 'x' } }).errors[0]?.kind, 'unknown-param');
});

test('tools whose schema cannot be used are skipped with a reason; the rest are still covered', () => {
  const spec: Spec = {
    name: 'mixed',
    source: 'inline',
    invalidTools: [],
    tools: [
      { name: 'list_items', description: 'List items.', inputSchema: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 50 } } } },
      { name: 'get_item', description: 'Get an item.', inputSchema: { type: 'object', properties: { item_id: { type: 'string' } }, required: ['item_id'] } },
      { name: 'broken_ref', description: 'Broken.', inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/nowhere' } } } },
      {
        name: 'impossible',
        description: 'Cannot be satisfied.',
        inputSchema: { type: 'object', properties: { a: { type: 'string', minLength: 5, maxLength: 2 } }, required: ['a'] },
      },
    ],
  };
  const r = generateOffline(spec, { seed: 3, simple: 2, complex: 1 });
  assert.deepEqual(
    r.skipped.map((s) => s.tool),
    ['broken_ref', 'impossible'],
  );
  assert.match(r.skipped[0]?.reason ?? '', /cannot be compiled/);
  assert.match(r.skipped[1]?.reason ?? '', /no schema-valid arguments after 6 attempts/);
  assert.deepEqual(r.manifestCounts.coverage.uncovered, ['broken_ref', 'impossible']);
  assert.equal(r.manifestCounts.coverage.covered, 2);
  // The chain list_items → get_item carries the id through the listing's output.
  const chained = r.records.find((rec) => rec.expected_tools.map((c) => c.name).join() === 'list_items,get_item');
  assert.ok(chained, 'a list → get scenario exists');
  const id = chained.expected_tools[1]?.arguments.item_id as string;
  assert.ok(JSON.stringify(chained.mock_outputs[0]?.output).includes(id));
  assert.ok(!chained.prompt.includes(id), 'the id comes from the listing, not from the user');
});

test('same seed → byte-identical records; another seed → other values', () => {
  let differing = 0;
  for (const [file, spec] of specs) {
    const again = generateOffline(spec, OPTIONS);
    assert.equal(JSON.stringify(again.records), JSON.stringify(results.get(file)!.records), file);
    const other = generateOffline(spec, { ...OPTIONS, seed: 2 });
    const argsA = JSON.stringify(results.get(file)!.records.map((r) => r.expected_tools.map((c) => c.arguments)));
    const argsB = JSON.stringify(other.records.map((r) => r.expected_tools.map((c) => c.arguments)));
    if (argsA !== argsB) differing++;
    else assert.ok(/gitlab-broken|^(postgres|gdrive)\.json$/.test(file), `${file}: seed 2 produced the same arguments as seed 1`);
  }
  assert.ok(differing >= 29, `${differing} specs differ by seed`);
});

/**
 * What each version label of the offline generator stands for: a fingerprint (SHA-256) of its
 * records on the whole corpus at this file's sizes. Same seed → byte-identical output under one
 * label, so a change of output needs a new label: bump `OFFLINE_MODEL` (and the stage versions in
 * `OFFLINE_PROMPT_VERSIONS` whose output changed) and put the new fingerprint under the new label.
 */
const OUTPUT_FINGERPRINTS: Readonly<Record<string, string>> = {
  'offline-v4': '5470443174e2b0d4df71ff8ff96aa29e5ba39f8a3308e36e392e4cc9c38dfbc3',
  // v5: a scenario redrawn for a repeated prompt keeps its plan's ordinal in its id (no more `sNaN-…`).
  'offline-v5': 'a996eba5ecd40844758d1a08a0fe1e11097028b3400dbb554533db74467826d6',
  // v6: determinate harnesses (issue 20): listed items named in the user's words, reads of X answer about X, no recited descriptions.
  'offline-v6': '9331c779f303237c3b84cc30b44695a9948f319f5d773986c64b46dbafb60b05',
};

test('the version label changes when the output does: the corpus output matches the fingerprint of the current label', () => {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\n${JSON.stringify(results.get(file)!.records)}\n`);
  const now = hash.digest('hex');
  assert.equal(
    now,
    OUTPUT_FINGERPRINTS[OFFLINE_MODEL],
    `output of ${OFFLINE_MODEL} changed (fingerprint ${now}): bump the label and record the fingerprint under it`,
  );
});

test('the integrity check is not vacuous: removing a chained id from its producer breaks it', () => {
  let tried = 0;
  for (const [file, spec] of specs) {
    for (const record of results.get(file)!.records) {
      const outputs = record.mock_outputs.map((m) => m.output);
      // The schema's own literals (an enum `"page_id"`) are exempt, as checkIntegrity exempts them.
      const laterIds = record.expected_tools
        .slice(1)
        .flatMap((c, k) => idLikeValues(c.arguments, schemaLiterals(findTool(spec, c.name)?.inputSchema)).map((v) => ({ ...v, callIndex: k + 1 })));
      const chained = laterIds.find(
        (v) => typeof v.value === 'string' && !record.prompt.includes(String(v.value)) && JSON.stringify(outputs[0]).includes(String(v.value)),
      );
      if (!chained) continue;
      const scrubbed = outputs.map((o, i) => (i === 0 ? JSON.parse(JSON.stringify(o).split(String(chained.value)).join('REDACTED')) : o));
      // Later outputs echo the id too; only outputs before the consuming call count, so scrub up to it.
      for (let i = 1; i < chained.callIndex; i++) scrubbed[i] = JSON.parse(JSON.stringify(outputs[i]).split(String(chained.value)).join('REDACTED'));
      const violations = checkIntegrity({ calls: record.expected_tools, outputs: scrubbed, prompt: record.prompt, spec });
      assert.ok(
        violations.some((v) => v.value === chained.value),
        `${file} ${record.id}: ${chained.param}`,
      );
      tried++;
    }
  }
  assert.ok(tried >= 50, `only ${tried} chained ids found`);
});

test('multi-turn: complex workflows with a read/act boundary always split; rate measured over multi-call scenarios', (t) => {
  let multiCall = 0;
  let multiTurn = 0;
  let complexTotal = 0;
  let complexSplit = 0;
  for (const [file, spec] of specs) {
    const analysis = analysisOf(spec);
    for (const r of results.get(file)!.records) {
      if (r.expected_tools.length >= 2) multiCall++;
      if (r.conversation.length >= 2) multiTurn++;
      if (r.tier !== 'complex') continue;
      complexTotal++;
      if (r.conversation.length) complexSplit++;
      const phases = new Set(r.expected_tools.map((c) => analysis.byName.get(c.name)?.phase));
      if (phases.size === 2) assert.ok(r.conversation.length >= 2, `${file} ${r.id}: mixed phases but no split`);
      // Turns follow phase boundaries: inside a turn all calls share a phase, unless it was a dependency split.
      for (const turn of r.conversation) assert.ok(turn.calls.length > 0);
    }
  }
  const rate = multiTurn / multiCall;
  t.diagnostic(
    `multi-turn: ${multiTurn}/${multiCall} multi-call records (${(rate * 100).toFixed(1)}%); complex: ${complexSplit}/${complexTotal} (${((complexSplit / complexTotal) * 100).toFixed(1)}%)`,
  );
  assert.ok(rate > 0.3, `multi-turn rate ${rate}`);
  assert.ok(complexSplit / complexTotal > 0.6, `complex split rate ${complexSplit / complexTotal}`);
});

test('stage 1: interpretOffline gives a valid interpretation for every tool of every fixture', () => {
  for (const [file, spec] of specs) {
    for (const tool of spec.tools) {
      const i = interpretOffline(spec, tool);
      assert.deepEqual(ToolInterpretation.parse(i), i);
      assert.equal(i.tool_name, tool.name, file);
      assert.ok(i.what_it_does.length > 0 && i.why_its_used.length > 0 && i.enterprise_context.length > 0, `${file} ${tool.name}`);
    }
  }
  const slack = specs.get('slack.json')!;
  const post = interpretOffline(slack, findTool(slack, 'slack_post_message')!);
  assert.match(post.what_it_needs, /channel_id \(string, required\)/);
});

test('stage 2: scenariosOffline returns a valid batch of the requested size, targeting focus tools first', () => {
  const spec = specs.get('github-official-all.json')!;
  const batch = scenariosOffline(spec, [], { seed: 5, tier: 'complex', count: 4, focus: ['merge_pull_request', 'fork_repository'] });
  assert.deepEqual(ScenarioBatch.parse(batch), batch);
  const scenarios = batch.categories.flatMap((c) => c.scenarios);
  assert.equal(scenarios.length, 4);
  const names = new Set(scenarios.flatMap((s) => s.agent_workflow.map((c) => c.name)));
  assert.ok(names.has('merge_pull_request') && names.has('fork_repository'), [...names].join(', '));
  for (const s of scenarios) for (const c of s.agent_workflow) assert.ok(validateCall(spec, c).ok);
});

test('stage 3: mockOffline repairs an LLM-style workflow whose ids come from nowhere', () => {
  const spec = specs.get('slack.json')!;
  const scenario: Scenario = {
    title: 'Reply in the deploys channel',
    prompt: 'Find the deploys channel and reply to the latest thread there.',
    agent_workflow: [
      { name: 'slack_list_channels', arguments: {}, explanation: 'find the channel' },
      { name: 'slack_get_channel_history', arguments: { channel_id: 'C0DEPLOYS1' }, explanation: 'read it' },
      { name: 'slack_reply_to_thread', arguments: { channel_id: 'C0DEPLOYS1', thread_ts: '1748772000.123456', text: 'On it' }, explanation: 'reply' },
    ],
    novelty_reason: 'x',
    agent_followup: 'y',
  };
  const before = checkIntegrity({ calls: scenario.agent_workflow, outputs: [{}, {}, {}], prompt: scenario.prompt, spec });
  assert.ok(before.length >= 2);
  const mock = mockOffline(spec, scenario, { seed: 1 });
  const outputs = mock.mock_workflow.map((m) => m.output);
  assert.deepEqual(checkIntegrity({ calls: scenario.agent_workflow, outputs, prompt: scenario.prompt, spec }), []);
  // The channel id went into the listing (the producer), as an item's id.
  const listing = outputs[0] as { channels: { id: string }[] };
  assert.equal(listing.channels[0]?.id, 'C0DEPLOYS1');
  assert.match(mock.expected_response, /C0DEPLOYS1/);
});

test('stage 4: turnsOffline splits at read/act boundaries and never emits a single turn', () => {
  const spec = specs.get('slack.json')!;
  const wf = (names: string[]): Scenario => ({
    title: names.join(' '),
    prompt: 'p',
    agent_workflow: names.map((name) => ({
      name,
      arguments: name === 'slack_list_channels' ? {} : { channel_id: 'C0DEPLOYS1', text: 'hi', reaction: 'eyes', timestamp: '1.2' },
      explanation: '',
    })),
    novelty_reason: '',
    agent_followup: '',
  });
  const mixed = wf(['slack_list_channels', 'slack_get_channel_history', 'slack_post_message', 'slack_add_reaction']);
  const split = turnsOffline(spec, mixed, mockOffline(spec, mixed, { seed: 1 }), { seed: 1 });
  assert.deepEqual(
    split?.turns.map((t) => t.calls),
    [
      [0, 1],
      [2, 3],
    ],
  );
  assert.match(split?.turns[1]?.prompt ?? '', /^(So there (is|are) |Good, the |Thanks\.)/, 'later turns react to the previous result');
  const reads = wf(['slack_list_channels', 'slack_get_users']);
  assert.equal(turnsOffline(spec, reads, mockOffline(spec, reads, { seed: 1 }), { seed: 1 }), undefined);
});

test('callability: every fixture tool is callable offline', () => {
  for (const [file, spec] of specs) assert.deepEqual(callability(spec, 1).skipped, [], file);
});

test('argument sampling satisfies demanding schemas (formats, patterns, bounds, tuples, alternatives, refs)', () => {
  const obj = (properties: Record<string, unknown>, required = Object.keys(properties), extra: Record<string, unknown> = {}) => ({
    type: 'object',
    properties,
    required,
    ...extra,
  });
  const tools = [
    {
      name: 'create_contact',
      inputSchema: obj({
        email: { type: 'string', format: 'email' },
        birthday: { type: 'string', format: 'date' },
        seen_at: { type: 'string', format: 'date-time' },
        homepage: { type: 'string', format: 'uri' },
        contact_id: { type: 'string', format: 'uuid' },
        host: { type: 'string', format: 'ipv4' },
      }),
    },
    {
      name: 'set_code',
      inputSchema: obj({
        code: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
        sku: { type: 'string', pattern: '^(ab|cd)_[a-f0-9]{6}$' },
        short: { type: 'string', minLength: 3, maxLength: 5 },
      }),
    },
    {
      name: 'set_numbers',
      inputSchema: obj(
        {
          pct: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
          step: { type: 'integer', minimum: 10, maximum: 20, multipleOf: 5 },
          legacy: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 3 },
        },
        ['pct', 'step'],
        { $schema: 'http://json-schema.org/draft-04/schema#' },
      ),
    },
    {
      name: 'set_lists',
      inputSchema: obj(
        {
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 2, maxItems: 3, uniqueItems: true },
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
        },
        ['tags', 'pair'],
        { $schema: 'https://json-schema.org/draft/2020-12/schema' },
      ),
    },
    {
      name: 'set_shape',
      inputSchema: obj({
        target: {
          oneOf: [
            obj({ kind: { const: 'page' }, page_id: { type: 'string', format: 'uuid' } }, ['kind', 'page_id'], { additionalProperties: false }),
            obj({ kind: { const: 'db' }, db_id: { type: 'string' } }, ['kind', 'db_id'], { additionalProperties: false }),
          ],
        },
        mixed: { allOf: [obj({ a: { type: 'string' } }), obj({ b: { type: ['integer', 'null'] } })] },
        nullable: { anyOf: [{ type: 'null' }, { type: 'string', minLength: 2 }] },
      }),
    },
    {
      name: 'set_tree',
      inputSchema: {
        type: 'object',
        properties: { root: { $ref: '#/$defs/node' } },
        required: ['root'],
        $defs: { node: obj({ label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, ['label']) },
      },
    },
    {
      name: 'set_map',
      inputSchema: obj({
        labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 20 }, minProperties: 1 },
        filter: { type: 'object', properties: {}, additionalProperties: {} },
      }),
    },
  ];
  const spec: Spec = { name: 'hard', source: 'inline', invalidTools: [], tools };
  for (const seed of [1, 2, 3, 4, 5]) {
    const r = generateOffline(spec, { seed, simple: 4, complex: 2 });
    assert.deepEqual(r.skipped, [], `seed ${seed}`);
    assert.equal(r.manifestCounts.coverage.ratio, 1);
    for (const rec of r.records)
      for (const c of rec.expected_tools)
        assert.ok(validateCall(spec, c).ok, `seed ${seed} ${c.name} ${JSON.stringify(c.arguments)}: ${JSON.stringify(validateCall(spec, c).errors)}`);
  }
  const one = generateOffline(spec, { seed: 9, simple: 1, complex: 0 });
  const contact = one.records.flatMap((r) => r.expected_tools).find((c) => c.name === 'create_contact')!.arguments;
  assert.match(String(contact.email), /^[a-z0-9.]+@[a-z0-9-]+\.com$/);
  assert.match(String(contact.seen_at), /^2026-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const code = one.records.flatMap((r) => r.expected_tools).find((c) => c.name === 'set_code')!.arguments;
  assert.match(String(code.code), /^[A-Z]{3}-\d{4}$/);
});

test('counts are whole numbers, and parameters the description calls alternatives are not both filled', () => {
  const description =
    "Read a file. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file.";
  const lines = (which: string) => ({ type: 'number', description: `If provided, returns only the ${which} N lines of the file` });
  const tools = [
    {
      name: 'read_text_file',
      description,
      inputSchema: { type: 'object', properties: { path: { type: 'string' }, tail: lines('last'), head: lines('first') }, required: ['path'] },
    },
    {
      name: 'search',
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string' }, max_results: { type: 'number', minimum: 1, maximum: 50 }, score: { type: 'number', minimum: 0, maximum: 1 } },
        required: ['query', 'max_results', 'score'],
      },
    },
  ];
  const spec: Spec = { name: 'fs', source: 'inline', invalidTools: [], tools };
  let fractions = 0;
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    const r = generateOffline(spec, { seed, simple: 4, complex: 2 });
    assert.equal(r.manifestCounts.coverage.ratio, 1);
    for (const c of r.records.flatMap((rec) => rec.expected_tools)) {
      assert.ok(validateCall(spec, c).ok, `seed ${seed} ${JSON.stringify(c)}`);
      for (const k of ['head', 'tail', 'max_results'])
        if (k in c.arguments) assert.ok(Number.isInteger(c.arguments[k]), `seed ${seed} ${k}: ${String(c.arguments[k])}`);
      assert.ok(!('head' in c.arguments && 'tail' in c.arguments), `seed ${seed}: head and tail together`);
      if (typeof c.arguments.score === 'number' && !Number.isInteger(c.arguments.score)) fractions++;
    }
  }
  assert.ok(fractions > 0, 'a score between 0 and 1 keeps its fractions');
});

test('exclusions: parameters named together with words of exclusion', () => {
  const none = (): string => '';
  assert.deepEqual(
    [
      ...(exclusions(['path', 'head', 'tail'], none, "Use the 'head' parameter for the first N lines, or the 'tail' parameter for the last N lines.").get(
        'head',
      ) ?? []),
    ],
    ['tail'],
  );
  assert.deepEqual(
    [...(exclusions(['since', 'days'], (k) => (k === 'days' ? 'Cannot be used together with since.' : ''), undefined).get('since') ?? [])],
    ['days'],
  );
  assert.equal(exclusions(['owner', 'repo'], (k) => (k === 'owner' ? 'The owner of the repo.' : ''), 'List the issues of a repo.').size, 0);
});

test('task phrases read like requests: no alternative second verb, no placeholder for the argument, no recited qualification', () => {
  assert.equal(descriptionPhrase('Create a new file or completely overwrite an existing file with new content. Use with caution.'), 'create a new file');
  // What the tool answers with ("a detailed listing of") and how ("in a specified path") are not what a user asks for.
  assert.equal(descriptionPhrase('Get a detailed listing of all files and directories in a specified path. Results are prefixed.'), 'get a detailed listing');
  assert.equal(descriptionPhrase('Get a list of all users in the workspace with their basic profile information.', 'user'), 'get all users');
  assert.equal(descriptionPhrase('Reply to a specific message thread in Slack', 'thread'), 'reply to a message thread');
  assert.equal(descriptionPhrase('List public or pre-defined channels in the workspace with pagination', 'channel'), 'list public or pre-defined channels');
  // A phrase that does not name the tool's thing, or runs past six words, is no phrase: the tool's verb and noun stand in.
  assert.equal(descriptionPhrase('Modify the properties of a given account.', 'account'), undefined);
  assert.equal(descriptionPhrase('Show every single change made to every tracked file today', 'change'), undefined);
  assert.equal(descriptionPhrase('Move or rename files and directories.'), 'move or rename files');
});
