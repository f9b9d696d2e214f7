/** Schema-complexity metrics and findings: inline schemas for each rule, then the real fixtures. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  analyzeSpec,
  analyzeTool,
  DEFAULT_THRESHOLDS,
  FINDING_CODE_LIST,
  FINDING_CODES,
  isFindingCode,
  type ComplexityThresholds,
  type Finding,
  type FindingCode,
} from '../../../../src/core/complexity';
import type { Spec, Tool } from '../../../../src/core/spec/model';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { lintSpecText } from '../../../../src/core/lint';
import { clientFindings } from '../../../../src/core/compat/clients';
import { specsDir } from '../../fixturePaths';

const str = (description?: string): Record<string, unknown> => (description ? { type: 'string', description } : { type: 'string' });
/** An object schema with the given properties; `required` defaults to all of them. */
function obj(properties: Record<string, unknown>, required: string[] = Object.keys(properties)): Record<string, unknown> {
  return { type: 'object', properties, required };
}
function tool(name: string, inputSchema: unknown, extra: Partial<Tool> = {}): Tool {
  const t: Tool = { name, description: `Does ${name}.`, ...extra };
  if (inputSchema !== undefined) t.inputSchema = inputSchema;
  return t;
}
function spec(tools: Tool[], invalidTools: Spec['invalidTools'] = []): Spec {
  return { name: 'test', source: 'test.json', tools, invalidTools };
}
const codes = (findings: Finding[]): FindingCode[] => [...new Set(findings.map((f) => f.code))].sort();
const only = (findings: Finding[], code: FindingCode): Finding[] => findings.filter((f) => f.code === code);
/** n described string params named p1…pn. */
const params = (n: number): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i + 1}`, str(`Parameter number ${i + 1} of the request.`)]));

// ---------------------------------------------------------------- metrics

const metricCases: { name: string; schema: unknown; params: number; optional: number; depth: number; broken?: boolean; recursive?: boolean }[] = [
  { name: 'an object with no properties', schema: { type: 'object' }, params: 0, optional: 0, depth: 1 },
  { name: 'scalar properties', schema: obj({ a: str('A.'), b: { type: 'integer', description: 'B.' } }, ['a']), params: 2, optional: 1, depth: 1 },
  { name: 'an array of strings', schema: obj({ tags: { type: 'array', items: str('A tag.'), description: 'Tags.' } }), params: 1, optional: 0, depth: 2 },
  {
    name: 'an array of objects',
    schema: obj({ edits: { type: 'array', description: 'Edits.', items: obj({ oldText: str('Old.'), newText: str('New.') }) } }),
    params: 1,
    optional: 0,
    depth: 3,
  },
  {
    name: 'a map (additionalProperties)',
    schema: obj({ env: { type: 'object', description: 'Env.', additionalProperties: str('Value.') } }),
    params: 1,
    optional: 0,
    depth: 2,
  },
  {
    name: 'a map (patternProperties)',
    schema: obj({ env: { type: 'object', description: 'Env.', patternProperties: { '^[A-Z]+$': str('V.') } } }),
    params: 1,
    optional: 0,
    depth: 2,
  },
  {
    name: 'a property with type object and nothing inside',
    schema: obj({ options: { type: 'object', description: 'Options.' } }),
    params: 1,
    optional: 0,
    depth: 2,
  },
  {
    // The README's convention (notion.json's `link`): a nullable object declaring nothing is a leaf.
    name: 'a nullable type-array object with nothing inside',
    schema: obj({ link: { type: ['object', 'null'], description: 'Link.' } }),
    params: 1,
    optional: 0,
    depth: 1,
  },
  {
    name: "FastMCP's anyOf [X, null] optionals (unions add no level)",
    schema: {
      type: 'object',
      properties: {
        since: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Since', description: 'Lower bound.' },
        filter: { anyOf: [obj({ field: str('F.') }), { type: 'null' }], default: null, description: 'Filter.' },
        name: str('Name.'),
      },
      required: ['name'],
    },
    params: 3,
    optional: 2,
    depth: 2,
  },
  {
    name: 'a top-level $ref into $defs',
    schema: { $ref: '#/$defs/Args', $defs: { Args: obj({ x: str('X.'), y: str('Y.') }, ['x']) } },
    params: 2,
    optional: 1,
    depth: 1,
  },
  {
    name: 'a top-level $ref into definitions',
    schema: { $ref: '#/definitions/Args', definitions: { Args: obj({ x: { type: 'array', items: str('I.'), description: 'X.' } }) } },
    params: 1,
    optional: 0,
    depth: 2,
  },
  {
    name: 'nested $refs (levels counted in the target, not for the $ref)',
    schema: { ...obj({ parent: { $ref: '#/$defs/Parent' } }), $defs: { Parent: obj({ id: { $ref: '#/$defs/Id' } }), Id: str('Id.') } },
    params: 1,
    optional: 0,
    depth: 2,
  },
  {
    name: 'a recursive $ref (cycle cut after one pass)',
    schema: {
      ...obj({ root: { $ref: '#/$defs/Node', description: 'The whole tree.' } }),
      $defs: { Node: obj({ children: { type: 'array', items: { $ref: '#/$defs/Node' }, description: 'Kids.' } }) },
    },
    params: 1,
    optional: 0,
    depth: 3,
    recursive: true,
  },
  { name: 'a self-reference to the root', schema: obj({ next: { $ref: '#', description: 'Next.' } }), params: 1, optional: 0, depth: 1, recursive: true },
  { name: "gitlab-broken's {$schema} only", schema: { $schema: 'http://json-schema.org/draft-07/schema#' }, params: 0, optional: 0, depth: 0, broken: true },
  { name: 'no inputSchema at all', schema: undefined, params: 0, optional: 0, depth: 0, broken: true },
  { name: 'an inputSchema that is a string', schema: 'object', params: 0, optional: 0, depth: 0, broken: true },
];

for (const c of metricCases) {
  test(`metrics: ${c.name}`, () => {
    const { metrics } = analyzeTool(tool('t', c.schema));
    assert.deepEqual(
      { params: metrics.params, optional: metrics.optional, depth: metrics.depth, broken: metrics.broken, recursive: metrics.recursive },
      { params: c.params, optional: c.optional, depth: c.depth, broken: c.broken ?? false, recursive: c.recursive ?? false },
    );
    assert.equal(metrics.required, c.params - c.optional);
    assert.equal(metrics.optionalRatio, c.params === 0 ? 0 : c.optional / c.params);
  });
}

test('metrics count $ref and union keywords, not parameters that happen to be named like them', () => {
  const { metrics } = analyzeTool(
    tool('t', {
      ...obj({
        anyOf: str('A parameter called anyOf.'),
        $ref: str('And one called $ref.'),
        x: { oneOf: [{ $ref: '#/$defs/A' }, { type: 'null' }], description: 'X.' },
      }),
      $defs: { A: { allOf: [str('A.')] } },
    }),
  );
  assert.deepEqual([metrics.refs, metrics.unions, metrics.params], [1, 2, 3]);
});

test('analyzeSpec pools the optional ratio over all parameters (not a mean of per-tool ratios)', () => {
  const p = analyzeSpec(spec([tool('a', obj(params(1), [])), tool('b', obj(params(3)))]));
  // Per-tool ratios 1 and 0 would average 0.5; pooled it is 1 optional of 4.
  assert.equal(p.optionalRatio, 0.25);
  assert.equal(p.meanParams, 2);
  assert.equal(p.maxParams, 3);
  assert.equal(p.tools, 2);
  assert.deepEqual(
    p.perTool.map((m) => m.name),
    ['a', 'b'],
  );
});

test('analyzeSpec on an empty spec is all zeros', () => {
  const p = analyzeSpec(spec([]));
  assert.deepEqual([p.tools, p.meanParams, p.maxParams, p.optionalRatio, p.maxDepth, p.findings.length], [0, 0, 0, 0, 0, 0]);
});

// ---------------------------------------------------------------- one rule at a time

interface RuleCase {
  name: string;
  tool: Tool;
  thresholds?: Partial<ComplexityThresholds>;
  /** The finding codes the tool must get, exactly. */
  codes: FindingCode[];
  /** The parameter every finding of the case's first code names, if any. */
  param?: string;
  /** Text the first finding's message must contain. */
  says?: RegExp;
}

const clean = obj({ q: str('Search words.') });
const ruleCases: RuleCase[] = [
  { name: 'a clean tool', tool: tool('t', clean), codes: [] },
  { name: 'no description', tool: tool('t', clean, { description: undefined }), codes: ['tool-no-description'] },
  { name: 'a blank description', tool: tool('t', clean, { description: '  \n' }), codes: ['tool-no-description'] },
  {
    name: 'readOnlyHint and destructiveHint both true',
    tool: tool('t', clean, { annotations: { readOnlyHint: true, destructiveHint: true } }),
    codes: ['contradictory-annotations'],
  },
  { name: 'read-only and not destructive', tool: tool('t', clean, { annotations: { readOnlyHint: true, destructiveHint: false } }), codes: [] },
  { name: 'null annotations', tool: tool('t', clean, { annotations: null }), codes: [] },
  { name: 'a missing inputSchema', tool: tool('t', undefined), codes: ['broken-schema'], says: /has no inputSchema/ },
  { name: 'a null inputSchema', tool: tool('t', null), codes: ['broken-schema'], says: /null, not a schema object/ },
  { name: 'an array inputSchema', tool: tool('t', [clean]), codes: ['broken-schema'], says: /an array/ },
  { name: 'no type: object', tool: tool('t', { properties: { q: str('Search words.') } }), codes: ['broken-schema'], says: /declares no `type: "object"`/ },
  { name: 'type array at the root', tool: tool('t', { type: 'array', items: str('Search words.') }), codes: ['broken-schema'], says: /its type is "array"/ },
  {
    name: 'an unresolvable top-level $ref',
    tool: tool('t', { $ref: '#/$defs/Missing', $defs: {} }),
    codes: ['broken-schema'],
    says: /top-level \$ref "#\/\$defs\/Missing"/,
  },
  {
    name: 'an unresolvable nested $ref (placed on its parameter)',
    tool: tool('t', obj({ q: str('Search words.'), where: { $ref: '#/definitions/Where' } })),
    codes: ['broken-schema', 'param-no-description'],
    param: 'where',
    says: /"#\/definitions\/Where" that does not resolve/,
  },
  {
    name: 'a remote $ref (never fetched)',
    tool: tool('t', obj({ geo: { $ref: 'https://example.com/geo.json', description: 'Where.' } })),
    codes: ['broken-schema'],
    param: 'geo',
  },
  {
    name: 'properties that is not an object',
    tool: tool('t', { type: 'object', properties: [str('Search words.')] }),
    codes: ['broken-schema'],
    says: /`properties` is not an object/,
  },
  {
    name: 'a required name with no property',
    tool: tool('t', obj({ q: str('Search words.') }, ['q', 'query'])),
    codes: ['broken-schema'],
    says: /requires "query"/,
  },
  {
    name: 'a $ref via a plain-name anchor resolves',
    tool: tool('t', { ...obj({ q: { $ref: '#q' } }), $defs: { Q: { $anchor: 'q', type: 'string', description: 'Query.' } } }),
    codes: [],
  },
  { name: '9 parameters', tool: tool('t', obj(params(9))), codes: ['many-params'], says: /takes 9 parameters \(more than 8\)/ },
  { name: '8 parameters', tool: tool('t', obj(params(8))), codes: [] },
  { name: '9 parameters with maxParams 10', tool: tool('t', obj(params(9))), thresholds: { maxParams: 10 }, codes: [] },
  { name: '3 parameters with maxParams 2', tool: tool('t', obj(params(3))), thresholds: { maxParams: 2 }, codes: ['many-params'] },
  { name: '3 of 4 optional', tool: tool('t', obj(params(4), ['p1'])), codes: ['high-optional-ratio'], says: /3 of 4 parameters optional \(75%, above 60%\)/ },
  { name: '3 of 3 optional (too few to count)', tool: tool('t', obj(params(3), [])), codes: [] },
  {
    name: '3 of 3 optional with minParamsForOptionalRatio 3',
    tool: tool('t', obj(params(3), [])),
    thresholds: { minParamsForOptionalRatio: 3 },
    codes: ['high-optional-ratio'],
  },
  { name: '3 of 5 optional (60%, not above)', tool: tool('t', obj(params(5), ['p1', 'p2'])), codes: [] },
  { name: '3 of 4 optional with maxOptionalRatio 0.8', tool: tool('t', obj(params(4), ['p1'])), thresholds: { maxOptionalRatio: 0.8 }, codes: [] },
  {
    name: 'depth 4',
    tool: tool(
      't',
      obj({
        q: str('Search words.'),
        rows: { type: 'array', description: 'Table rows.', items: obj({ cells: { type: 'array', items: str('Cell.'), description: 'Cells.' } }) },
      }),
    ),
    codes: ['deep-nesting'],
    param: 'rows',
    says: /nested 4 levels deep \(through "rows"\), more than 3/,
  },
  { name: 'depth 3', tool: tool('t', obj({ rows: { type: 'array', description: 'Table rows.', items: obj({ c: str('C.') }) } })), codes: [] },
  {
    name: 'depth 4 with maxDepth 4',
    tool: tool(
      't',
      obj({ rows: { type: 'array', description: 'Table rows.', items: obj({ cells: { type: 'array', items: str('Cell.'), description: 'Cells.' } }) } }),
    ),
    thresholds: { maxDepth: 4 },
    codes: [],
  },
  {
    name: 'a recursive schema nested past the limit',
    tool: tool('t', {
      ...obj({ tree: { $ref: '#/$defs/N', description: 'The whole tree.' } }),
      $defs: { N: obj({ kids: { type: 'array', items: { $ref: '#/$defs/N' }, description: 'Kids.' } }) },
    }),
    thresholds: { maxDepth: 2 },
    codes: ['deep-nesting'],
    says: /and recursive/,
  },
  { name: 'a parameter without description', tool: tool('t', obj({ q: { type: 'string', title: 'Q' } })), codes: ['param-no-description'], param: 'q' },
  {
    name: 'a placeholder description that restates the name',
    tool: tool('t', obj({ AccountSid: str('AccountSid parameter') })),
    codes: ['param-no-description'],
    says: /placeholder description \("AccountSid parameter"\)/,
  },
  { name: 'a description on the $ref target', tool: tool('t', { ...obj({ q: { $ref: '#/$defs/Q' } }), $defs: { Q: str('Search words.') } }), codes: [] },
  { name: 'a description inside anyOf [X, null]', tool: tool('t', obj({ q: { anyOf: [str('Search words.'), { type: 'null' }] } }, [])), codes: [] },
  {
    name: 'a date by name',
    tool: tool('t', obj({ created_at: str('When it was made.') })),
    codes: ['free-text-format'],
    param: 'created_at',
    says: /a date or time.*format: "date-time"/,
  },
  { name: 'a date by description', tool: tool('t', obj({ since: str('Only items after this, ISO 8601.') })), codes: ['free-text-format'], says: /"ISO 8601"/ },
  {
    name: "a date inside FastMCP's anyOf [string, null]",
    tool: tool('t', obj({ start: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, description: 'Start, as YYYY-MM-DD.' } }, [])),
    codes: ['free-text-format'],
  },
  { name: 'a date with format', tool: tool('t', obj({ created_at: { ...str('Moment of creation.'), format: 'date-time' } })), codes: [] },
  {
    name: 'a date with format inside anyOf',
    tool: tool('t', obj({ start: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }], description: 'Start, YYYY-MM-DD.' } }, [])),
    codes: [],
  },
  { name: 'a date with a pattern', tool: tool('t', obj({ day: { ...str('Day, YYYY-MM-DD.'), pattern: '^\\d{4}-\\d{2}-\\d{2}$' } })), codes: [] },
  { name: 'a numeric timestamp', tool: tool('t', obj({ timestamp: { type: 'integer', description: 'Unix seconds.' } })), codes: [] },
  {
    name: 'a name whose description shows a date example',
    tool: tool('t', obj({ friendly_name: str('Label; defaults to "Created at YYYY-MM-DD".') })),
    codes: [],
  },
  { name: 'a time zone', tool: tool('t', obj({ time_zone: str('IANA zone such as Europe/Paris.') })), codes: [] },
  {
    name: 'an e-mail by name',
    tool: tool('t', obj({ email: str('Who to invite.') })),
    codes: ['free-text-format'],
    says: /an e-mail address.*format: "email"/,
  },
  { name: '"username or email address" is not e-mail only', tool: tool('t', obj({ author: str('Author username or email address.') })), codes: [] },
  { name: 'a URL by name', tool: tool('t', obj({ callbackUrl: str('Where we post results.') })), codes: ['free-text-format'], says: /a URL.*format: "uri"/ },
  { name: 'a URL by description', tool: tool('t', obj({ StatusCallback: str('The URL we call when the status changes.') })), codes: ['free-text-format'] },
  { name: 'a UUID', tool: tool('t', obj({ target: str('UUID of the object to move.') })), codes: ['free-text-format'], says: /a UUID/ },
  { name: 'a UUID with enum', tool: tool('t', obj({ target: { ...str('UUID of the object.'), enum: ['a', 'b'] } })), codes: [] },
  {
    name: 'enum-like quoted alternatives',
    tool: tool('t', obj({ order: str("Sort order, 'asc' or 'desc'.") })),
    codes: ['free-text-format'],
    says: /one of a fixed set.*`enum`/,
  },
  { name: 'enum-like "one of:"', tool: tool('t', obj({ mode: str('Mode, one of: fast, safe.') })), codes: ['free-text-format'] },
  { name: 'enum-like pipes', tool: tool('t', obj({ format: str('Output format json|yaml.') })), codes: ['free-text-format'] },
  { name: 'enum-like with an enum', tool: tool('t', obj({ order: { ...str("Sort order, 'asc' or 'desc'."), enum: ['asc', 'desc'] } })), codes: [] },
  {
    name: '"one of the connect tools" is not a value list',
    tool: tool('t', obj({ connectionId: str('Use the id returned by one of the connect tools.') })),
    codes: [],
  },
];

for (const c of ruleCases) {
  test(`rule: ${c.name}`, () => {
    const { findings } = analyzeTool(c.tool, c.thresholds);
    assert.deepEqual(codes(findings), [...c.codes].sort(), findings.map((f) => f.message).join('\n'));
    const first = c.codes[0] === undefined ? undefined : only(findings, c.codes[0]);
    if (c.param !== undefined) {
      assert.ok(first && first.length > 0);
      for (const f of first ?? []) assert.equal(f.param, c.param);
    }
    if (c.says) assert.match(first?.[0]?.message ?? '', c.says);
    for (const f of findings) {
      assert.equal(f.tool, c.tool.name);
      assert.equal(f.severity, FINDING_CODES[f.code].severity);
      assert.ok(f.message.endsWith(FINDING_CODES[f.code].explanation), 'message ends with the why');
    }
  });
}

test('analyzeTool without thresholds uses the defaults, and partial thresholds keep the other defaults', () => {
  const t = tool('t', obj(params(9), ['p1']));
  assert.deepEqual(codes(analyzeTool(t).findings), ['high-optional-ratio', 'many-params']);
  assert.deepEqual(codes(analyzeTool(t, { maxParams: 20 }).findings), ['high-optional-ratio']);
  assert.equal(DEFAULT_THRESHOLDS.maxParams, 8);
  assert.throws(() => {
    (DEFAULT_THRESHOLDS as ComplexityThresholds).maxParams = 1;
  }, TypeError);
});

// ---------------------------------------------------------------- rules across tools

/** The paper's Git example: `ref` in three tools with three meanings. */
const gitLike = (): Tool[] => [
  tool('git_log', obj({ ref: str('Commits starting from this revision.') })),
  tool('git_diff', obj({ ref: str('Compare the working tree against this branch or commit.') })),
  tool('git_show', obj({ ref: str('Show the object at this name.') })),
];

test('ambiguous-shared-param: one finding per tool using the name, naming the others', () => {
  const p = analyzeSpec(spec(gitLike()));
  const found = only(p.findings, 'ambiguous-shared-param');
  assert.deepEqual(
    found.map((f) => [f.tool, f.param, f.toolIndex]),
    [
      ['git_log', 'ref', 0],
      ['git_diff', 'ref', 1],
      ['git_show', 'ref', 2],
    ],
  );
  assert.match(found[0]?.message ?? '', /"ref" also appears with a different description in "git_diff", "git_show"\./);
  assert.match(found[0]?.message ?? '', /seven tools/);
});

test('ambiguous-shared-param: reworded or extended descriptions mean the same', () => {
  const p = analyzeSpec(
    spec([
      tool('a', obj({ owner: str('Repository owner') })),
      tool('b', obj({ owner: str('The owner of the repository.') })),
      tool('c', obj({ owner: str('Repository owner (username or organization)') })),
      tool('d', obj({ owner: { type: 'string', title: 'Owner' } })),
    ]),
  );
  assert.deepEqual(only(p.findings, 'ambiguous-shared-param'), []);
});

test('ambiguous-shared-param: different types clash even without descriptions', () => {
  const p = analyzeSpec(
    spec([
      tool('a', obj({ id: { type: 'string' } })),
      tool('b', obj({ id: { anyOf: [{ type: 'integer' }, { type: 'null' }] } })),
      tool('c', obj({ id: { type: 'string' } })),
      tool('d', obj({ id: { type: 'number' } })), // integer and number read as one numeric type
    ]),
  );
  const found = only(p.findings, 'ambiguous-shared-param');
  assert.deepEqual(
    found.map((f) => f.tool),
    ['a', 'b', 'c', 'd'],
  );
  assert.match(found[0]?.message ?? '', /different type \(here string\) in "b" \(number\), "d" \(number\)/);
  assert.match(found[1]?.message ?? '', /different type \(here number\) in "a" \(string\), "c" \(string\)/);
});

test('ambiguous-shared-param thresholds: minimum tools and description similarity', () => {
  assert.deepEqual(only(analyzeSpec(spec(gitLike()), { minToolsForSharedParam: 4 }).findings, 'ambiguous-shared-param'), []);
  assert.deepEqual(only(analyzeSpec(spec(gitLike()), { sharedParamMinSimilarity: 0 }).findings, 'ambiguous-shared-param'), []);
  const strict = analyzeSpec(spec([tool('a', obj({ state: str('New state') })), tool('b', obj({ state: str('Filter alerts by state') }))]), {
    sharedParamMinSimilarity: 0.9,
  });
  assert.equal(only(strict.findings, 'ambiguous-shared-param').length, 2);
});

test('duplicate-tool-name: every tool with the name', () => {
  const p = analyzeSpec(spec([tool('x', clean), tool('y', clean), tool('x', clean)]));
  assert.deepEqual(
    only(p.findings, 'duplicate-tool-name').map((f) => f.toolIndex),
    [0, 2],
  );
});

test('invalid-tool: a spec with a broken tool still reports the other tools plus a finding for that one', () => {
  const text = JSON.stringify(
    { tools: [{ name: 'ok', description: 'Fine.', inputSchema: clean }, { description: 'No name' }, { name: 'bad', inputSchema: 'x' }] },
    null,
    2,
  );
  const load = loadSpecText(text, 'mixed.json');
  assert.ok(load.ok);
  const p = analyzeSpec(load.spec);
  assert.equal(p.tools, 2);
  assert.equal(p.invalidTools, 1);
  assert.deepEqual(
    p.perTool.map((m) => [m.name, m.broken]),
    [
      ['ok', false],
      ['bad', true],
    ],
  );
  assert.deepEqual(
    p.findings.map((f) => [f.code, f.tool]),
    [
      ['tool-no-description', 'bad'],
      ['broken-schema', 'bad'],
      ['invalid-tool', 'tools[1]'],
    ],
  );
  const invalid = p.findings[2];
  assert.match(invalid?.message ?? '', /Entry 1 of the tool list is not a valid tool \(name: /);
  assert.ok(invalid?.location);
  assert.deepEqual(JSON.parse(text.slice(invalid.location.offset, invalid.location.offset + invalid.location.length)), { description: 'No name' });
});

test('findings name tools by index so duplicate names can still be placed', () => {
  const p = analyzeSpec(spec([tool('a', clean), tool('b', obj(params(9)))]));
  const many = only(p.findings, 'many-params');
  assert.deepEqual(
    many.map((f) => [f.tool, f.toolIndex]),
    [['b', 1]],
  );
});

// ---------------------------------------------------------------- the fixtures

function fixture(file: string): Spec {
  const load = loadSpecText(readFileSync(join(specsDir, file), 'utf8'), file);
  assert.ok(load.ok);
  return load.spec;
}

test('git-official.json: repo_path is shared by all 12 tools but never contradicted, so it is not ambiguous', () => {
  // mcp-git documents repo_path only in git_branch; the other 11 tools leave it undocumented, which
  // contradicts nothing. (The paper's 33-tool Git server with `ref` in seven tools is not in the corpus.)
  const s = fixture('git-official.json');
  const p = analyzeSpec(s);
  assert.equal(s.tools.filter((t) => 'repo_path' in ((t.inputSchema as { properties?: object }).properties ?? {})).length, 12);
  assert.deepEqual(only(p.findings, 'ambiguous-shared-param'), []);
  const undocumented = only(p.findings, 'param-no-description').filter((f) => f.param === 'repo_path');
  assert.equal(undocumented.length, 11);
  assert.ok(!undocumented.some((f) => f.tool === 'git_branch'));
  // The free strings that carry structure: two timestamps and an enum in prose.
  assert.deepEqual(
    only(p.findings, 'free-text-format').map((f) => `${f.tool}.${f.param ?? ''}`),
    ['git_log.start_timestamp', 'git_log.end_timestamp', 'git_branch.branch_type'],
  );
});

test("git-official.json with the paper's `ref` semantics added to log, diff and show: ambiguous in each", () => {
  const s = fixture('git-official.json');
  const meanings: Record<string, string> = {
    git_log: 'Show commits starting from this ref.',
    git_diff: 'Branch or commit to compare against.',
    git_show: 'The object to show, at this revision.',
  };
  const tools = s.tools.map((t) => {
    const meaning = meanings[t.name];
    if (!meaning) return t;
    const schema = t.inputSchema as { properties: Record<string, unknown> };
    return { ...t, inputSchema: { ...schema, properties: { ...schema.properties, ref: str(meaning) } } };
  });
  const found = only(analyzeSpec({ ...s, tools }).findings, 'ambiguous-shared-param');
  assert.deepEqual(
    found.map((f) => `${f.tool}.${f.param ?? ''}`),
    ['git_diff.ref', 'git_log.ref', 'git_show.ref'],
  );
});

test('gitlab-broken-empty-schemas.json: broken-schema for every tool, and nothing crashes', () => {
  const s = fixture('gitlab-broken-empty-schemas.json');
  const p = analyzeSpec(s);
  assert.equal(p.tools, 9);
  assert.deepEqual(
    p.findings.map((f) => f.code),
    Array(9).fill('broken-schema'),
  );
  assert.deepEqual(
    p.findings.map((f) => f.tool),
    s.tools.map((t) => t.name),
  );
  assert.ok(p.perTool.every((m) => m.broken && m.depth === 0 && m.params === 0));
});

test('notion.json: $defs are followed for depth and descriptions, and no $ref is unresolved', () => {
  const p = analyzeSpec(fixture('notion.json'));
  assert.equal(only(p.findings, 'broken-schema').length, 0);
  const deepest = p.perTool.find((m) => m.name === 'API-patch-block-children');
  assert.equal(deepest?.depth, 7);
  assert.ok((deepest?.refs ?? 0) > 0);
  const deep = only(p.findings, 'deep-nesting').find((f) => f.tool === 'API-patch-block-children');
  assert.equal(deep?.param, 'children');
});

test('every fixture analyses without throwing, with known codes and their documented severities', () => {
  for (const file of readdirSync(specsDir).filter((f) => f.endsWith('.json'))) {
    const s = fixture(file);
    const p = analyzeSpec(s);
    const names = new Set(s.tools.map((t) => t.name));
    for (const f of p.findings) {
      assert.ok(isFindingCode(f.code), `${file}: ${f.code}`);
      assert.equal(f.severity, FINDING_CODES[f.code].severity);
      assert.ok(names.has(f.tool), `${file}: ${f.tool}`);
      assert.equal(s.tools[f.toolIndex ?? -1]?.name, f.tool);
      if (f.param !== undefined) assert.ok(s.locations?.[f.toolIndex ?? -1]?.params[f.param], `${file}: ${f.tool}.${f.param} has a location`);
    }
  }
});

// ---------------------------------------------------------------- the code table

test('FINDING_CODES: kebab-case codes, each with a title and a one-sentence explanation', () => {
  assert.deepEqual(FINDING_CODE_LIST, Object.keys(FINDING_CODES));
  for (const code of [
    'many-params',
    'high-optional-ratio',
    'deep-nesting',
    'param-no-description',
    'free-text-format',
    'ambiguous-shared-param',
    'contradictory-annotations',
    'broken-schema',
    'tool-no-description',
    'invalid-tool',
  ]) {
    assert.ok(isFindingCode(code), code);
  }
  assert.equal(isFindingCode('toString'), false);
  for (const [code, doc] of Object.entries(FINDING_CODES)) {
    assert.match(code, /^[a-z]+(-[a-z]+)*$/);
    assert.ok(['error', 'warning', 'info'].includes(doc.severity));
    assert.ok(doc.title.length > 0);
    assert.match(doc.explanation, /\.$/);
    assert.doesNotMatch(doc.explanation.slice(0, -1), /[.!?]\s+[A-Z]/, `${code}: one sentence`);
  }
  // The density and optional-ratio rules cite the paper's correlations.
  assert.match(FINDING_CODES['many-params'].explanation, /parameter density, not tool count/);
  assert.match(FINDING_CODES['high-optional-ratio'].explanation, /r = -0\.66/);
});

test('lintSpecText places findings on the tool name or the parameter key, and bad JSON where it breaks', () => {
  const text = JSON.stringify(
    {
      tools: [
        { name: 'a', description: 'Does a.', inputSchema: { type: 'object' } },
        { name: 'b', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
      ],
    },
    null,
    2,
  );
  const lines = text.split('\n');
  const at = (r: { start: { line: number; character: number }; end: { line: number; character: number } }): string => {
    assert.equal(r.start.line, r.end.line);
    return (lines[r.start.line] ?? '').slice(r.start.character, r.end.character);
  };
  const { diagnostics } = lintSpecText(text, 'spec.json');
  const placed = diagnostics.map((d) => [d.code, d.tool, d.param ?? null, at(d.range)]);
  assert.deepEqual(placed, [
    ['tool-no-description', 'b', null, '"b"'],
    ['param-no-description', 'b', 'q', '"q"'],
  ]);

  const broken = lintSpecText('{\n  "tools": [\n    {"name" "x"}\n  ]\n}', 'broken.json');
  assert.equal(broken.profile, undefined);
  assert.equal(broken.diagnostics[0]?.code, 'invalid-json');
  assert.equal(broken.diagnostics[0]?.range.start.line, 2);
});

test('lintSpecText: ambiguous-shared-param once per parameter name on chrome-devtools, the other uses as related locations', () => {
  const text = readFileSync(join(specsDir, 'chrome-devtools.json'), 'utf8');
  const { profile, diagnostics } = lintSpecText(text, 'chrome-devtools.json');
  const raw = profile?.findings.filter((f) => f.code === 'ambiguous-shared-param') ?? [];
  const shown = diagnostics.filter((d) => d.code === 'ambiguous-shared-param');
  const names = new Set(raw.map((f) => f.param));
  assert.ok(raw.length > names.size, `${raw.length} findings on ${names.size} names`);
  assert.equal(shown.length, names.size);
  for (const d of shown) {
    const others = raw.filter((f) => f.param === d.param).length - 1;
    assert.equal(d.related?.length, others, d.param);
    if (others > 0) assert.match(d.summary, new RegExp(`^Parameter "${d.param}" means different things across ${others + 1} tools`));
  }
  // The editor's message is one sentence; the why stays in `message` and on the help page.
  for (const d of diagnostics) assert.doesNotMatch(d.summary.slice(0, -1), /[.!?]\s+[A-Z]/, d.summary);
});

test('lintSpecText: a schema rewrite Gemini needs in every tool is one diagnostic, not a mark on each tool; many-params still stands out', () => {
  const text = readFileSync(join(specsDir, 'chrome-devtools.json'), 'utf8');
  const { diagnostics } = lintSpecText(text, 'chrome-devtools.json', { clients: ['gemini'] });
  const load = loadSpecText(text, 'chrome-devtools.json');
  assert.ok(load.ok);
  const raw = clientFindings(load.spec, ['gemini']);
  const shown = diagnostics.filter((d) => d.code === 'gemini-schema');
  const distinct = new Set(raw.map((f) => f.summary));
  assert.ok(raw.length > 10, `${raw.length} tools need a Gemini rewrite`);
  assert.equal(shown.length, distinct.size, 'one diagnostic per distinct rewrite');
  assert.ok(shown.length < raw.length / 4, `${shown.length} diagnostics for ${raw.length} tools`);
  assert.equal(
    shown.reduce((n, d) => n + 1 + (d.related?.length ?? 0), 0),
    raw.length,
    'every tool is still named: the first use or a related location',
  );
  for (const d of shown) if (d.related?.length) assert.match(d.summary, /the same in \d+ other tools? here \(see related\)\.$/);
  const marked = new Set(diagnostics.map((d) => d.tool));
  assert.ok(marked.size < load.spec.tools.length / 2, `${marked.size} of ${load.spec.tools.length} tools carry a mark`);
});
