/**
 * Value grounding's matching rule, case by case: chained IDs (with the call and path they come
 * from), identifier edges and case, numbers in any formatting, dates by calendar day, schema
 * enum/const/default, paths joined from a listing, turns, and which ungrounded values are findings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  containsId,
  datesIn,
  foundInText,
  groundingCounts,
  groundWorkflow,
  isUngroundedFinding,
  numbersIn,
  schemaKeyword,
  valueClass,
  type GroundedValue,
  type GroundingInput,
} from '../../../../src/core/checks/grounding';
import type { Spec } from '../../../../src/core/spec/model';

const spec: Spec = {
  name: 'tracker',
  source: 'inline',
  invalidTools: [],
  tools: [
    {
      name: 'search_issues',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          status: { type: 'string', enum: ['open', 'closed'] },
          limit: { type: 'integer', default: 25 },
          sort: { $ref: '#/$defs/sort' },
        },
        $defs: { sort: { type: 'string', const: 'updated' } },
      },
    },
    {
      name: 'update_issue',
      inputSchema: {
        type: 'object',
        properties: {
          issueId: { type: 'string' },
          assignee: { type: 'string' },
          minutes: { type: 'integer' },
          due: { type: 'string' },
          labels: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  ],
};

const one = (input: Omit<GroundingInput, 'spec'>, param: string, callIndex = input.calls.length - 1): GroundedValue => {
  const g = groundWorkflow({ ...input, spec }).find((x) => x.callIndex === callIndex && x.param === param);
  assert.ok(g, `no value at call ${callIndex} '${param}'`);
  return g;
};
const single = (prompt: string, calls: GroundingInput['calls'], outputs: unknown[] = []): Omit<GroundingInput, 'spec'> => ({
  calls,
  outputs,
  turns: [{ prompt, calls: calls.map((_, i) => i) }],
});

test('a chained ID is grounded in the earlier output that returned it, with its call and JSON path', () => {
  const input = single(
    'Find the open login bug and assign it to dana.',
    [
      { name: 'search_issues', arguments: { query: 'login bug', status: 'open' } },
      { name: 'update_issue', arguments: { issueId: 'ISS-204', assignee: 'dana' } },
    ],
    [{ issues: [{ id: 'ISS-204', title: 'Login fails' }], total: 1 }],
  );
  assert.deepEqual(one(input, 'issueId').source, { kind: 'output', call: 0, path: 'issues.0.id' });
  assert.deepEqual(one(input, 'assignee').source, { kind: 'user', turn: 0 });
  assert.deepEqual(one(input, 'query', 0).source, { kind: 'user', turn: 0 });
});

test("a call's own output, or a later one, never grounds it; another ID of the same shape is ungrounded", () => {
  const input = single(
    'Close the login bug.',
    [
      { name: 'update_issue', arguments: { issueId: 'ISS-204' } },
      { name: 'search_issues', arguments: { query: 'login' } },
    ],
    [{ id: 'ISS-204' }, { issues: [{ id: 'ISS-204' }] }],
  );
  assert.equal(one(input, 'issueId', 0).source.kind, 'none');
  const swapped = single(
    'Close the login bug.',
    [
      { name: 'search_issues', arguments: { query: 'login' } },
      { name: 'update_issue', arguments: { issueId: 'ISS-207' } },
    ],
    [{ issues: [{ id: 'ISS-204' }] }],
  );
  const g = one(swapped, 'issueId');
  assert.equal(g.source.kind, 'none');
  assert.equal(g.class, 'id');
  assert.ok(isUngroundedFinding(g));
});

test('identifiers: case-sensitive, matched whole, sentence punctuation is an edge', () => {
  assert.ok(containsId('close ISS-204.', 'ISS-204'));
  assert.ok(containsId('(id: obj_ZsUq)', 'obj_ZsUq'));
  assert.ok(!containsId('close ISS-204', 'ISS-20'), 'a prefix of a longer ID');
  assert.ok(!containsId('close ISS-204', 'SS-204'), 'a suffix of a longer ID');
  assert.ok(!containsId('obj_zsuq', 'obj_ZsUq'), 'IDs differ by case');
  assert.ok(!containsId('/srv/docs/a.txt', 'docs/a.txt'), 'a tail of a longer path');
  assert.ok(!containsId('see a.txt.bak', 'a.txt'), 'a name inside a longer file name');
  assert.ok(containsId('files: a.txt, b.txt', 'a.txt'));
});

test('names and words: case-insensitive on word edges', () => {
  assert.ok(foundInText('Post it in the General channel', 'general', 'name', true));
  assert.ok(!foundInText('Post it in #generalist', 'general', 'name', true));
  assert.ok(foundInText('Search for  "Login   Bug"', 'login bug', 'text', true));
  // Text the user asked for in other words: every content word is there.
  assert.ok(foundInText('Write a note saying the deploy finished', 'Deploy finished', 'text', true));
  assert.ok(!foundInText('Write a note', 'Deploy finished', 'text', true));
});

test('numbers compare by value whatever the formatting, and never as part of an ID or a date', () => {
  assert.deepEqual(numbersIn('pay $1,000.50 or 1_000 by 2026-03-05, see ISS-204 and page-2; top 5.'), [1000.5, 1000, 5]);
  assert.deepEqual(numbersIn('at 10:30'), []);
  assert.ok(numbersIn('show the last five runs', true).includes(5));
  assert.ok(!numbersIn('show the last five runs').includes(5), 'number words only in what the user wrote');
  const input = single('Snooze it for 1,440 minutes', [{ name: 'update_issue', arguments: { minutes: 1440 } }]);
  assert.deepEqual(one(input, 'minutes').source, { kind: 'user', turn: 0 });
  const fromOutput = single(
    'Snooze the issue as long as the policy allows.',
    [
      { name: 'search_issues', arguments: { query: 'policy' } },
      { name: 'update_issue', arguments: { minutes: 90 } },
    ],
    [{ policy: { maxSnooze: '90' }, note: 'page-90 of the manual' }],
  );
  assert.deepEqual(one(fromOutput, 'minutes').source, { kind: 'output', call: 0, path: 'policy.maxSnooze' });
  const nowhere = single('Snooze the issue.', [{ name: 'update_issue', arguments: { minutes: 59 } }]);
  const g = one(nowhere, 'minutes');
  assert.equal(g.class, 'amount');
  assert.equal(g.source.kind, 'none');
  assert.ok(isUngroundedFinding(g), 'the ignoreWindowMinutes: 59 of the issue');
});

test('dates: the same calendar day in ISO or with the month name; a time must be written unless midnight', () => {
  assert.deepEqual([...datesIn('due March 5, 2026 or 7th Apr 2026, or 2026-05-01')].sort(), ['2026-03-05', '2026-04-07', '2026-05-01']);
  assert.ok(foundInText('Set it due on March 5, 2026', '2026-03-05', 'date', true));
  assert.ok(foundInText('Set it due on March 5, 2026', '2026-03-05T00:00:00Z', 'date', true));
  assert.ok(!foundInText('Set it due on March 5, 2026', '2026-03-05T14:30:00Z', 'date', true));
  assert.ok(foundInText('Set it due on March 5, 2026 at 14:30', '2026-03-05T14:30:00Z', 'date', true));
  assert.ok(!foundInText('Set it due on March 6, 2026', '2026-03-05', 'date', true));
  const g = one(single('Set a due date.', [{ name: 'update_issue', arguments: { due: '2026-03-05' } }]), 'due');
  assert.equal(g.class, 'date');
  assert.ok(isUngroundedFinding(g));
});

test("schema: the parameter's own enum, const (through $ref) and default ground a value; another tool's do not", () => {
  const input = single('Look for crashes', [{ name: 'search_issues', arguments: { query: 'crashes', status: 'closed', limit: 25, sort: 'updated' } }]);
  assert.deepEqual(one(input, 'status').source, { kind: 'schema', keyword: 'enum' });
  assert.deepEqual(one(input, 'limit').source, { kind: 'schema', keyword: 'default' });
  assert.deepEqual(one(input, 'sort').source, { kind: 'schema', keyword: 'const' });
  const other = single('Update it', [{ name: 'update_issue', arguments: { minutes: 25 } }]);
  assert.equal(one(other, 'minutes').source.kind, 'none', "search_issues' default is not update_issue's");
});

test('a path is grounded by a listing of its directory: the directory from the user, the file name from the output', () => {
  const input = single(
    'Read the notes in /srv/app.',
    [
      { name: 'search_issues', arguments: { query: 'notes' } },
      { name: 'update_issue', arguments: { due: '/srv/app/notes.md' } },
    ],
    [{ content: '[FILE] notes.md\n[DIR] src' }],
  );
  assert.deepEqual(one(input, 'due').source, { kind: 'output', call: 0, path: 'content' });
  const sibling = single(
    'Read the notes in /srv/app/reports.',
    [
      { name: 'search_issues', arguments: { query: 'x' } },
      { name: 'update_issue', arguments: { due: '/srv/app/docs' } },
    ],
    [{ content: '[DIR] docs' }],
  );
  assert.equal(one(sibling, 'due').source.kind, 'none', 'a directory listed under /srv/app/reports is not /srv/app/docs');
});

test("turns: a value is grounded by the user's words of its turn or an earlier one, not a later one", () => {
  const input: Omit<GroundingInput, 'spec'> = {
    calls: [
      { name: 'update_issue', arguments: { issueId: 'ISS-1042', assignee: 'dana' } },
      { name: 'update_issue', arguments: { issueId: 'ISS-1042', assignee: 'lee' } },
    ],
    outputs: [{}, {}],
    turns: [
      { prompt: 'Assign ISS-1042 to lee.', calls: [0] },
      { prompt: 'Actually give it to dana.', calls: [1] },
    ],
  };
  assert.equal(one(input, 'assignee', 0).source.kind, 'none', 'dana is only named in the next turn');
  assert.deepEqual(one(input, 'issueId', 1).source, { kind: 'user', turn: 0 });
  assert.deepEqual(one(input, 'assignee', 1).source, { kind: 'user', turn: 0 });
});

test('classes: which ungrounded values are findings', () => {
  assert.equal(valueClass('issueId', 'ISS-204'), 'id');
  assert.equal(valueClass('project_id', 1042), 'id');
  assert.equal(valueClass('id', '1042'), 'id');
  assert.equal(valueClass('path', '/srv/a.txt'), 'path');
  assert.equal(valueClass('channel', 'general'), 'name');
  assert.equal(valueClass('comment', 'needs review'), 'text');
  assert.equal(valueClass('labels', 'needs-review'), 'id');
  assert.equal(valueClass('labels', 'bug'), 'name');
  assert.equal(valueClass('order', 'desc'), 'token');
  assert.equal(valueClass('amount', 10), 'amount');
  assert.equal(valueClass('expire_seconds', '3600'), 'amount');
  // Paging and limit knobs are the caller's own choice: counted, never findings.
  for (const knob of ['limit', 'per_page', 'pageSize', 'Page', 'maxResults', 'max_count', 'offset', 'count', 'tail'])
    assert.equal(valueClass(knob, 10), 'setting', knob);
  assert.equal(valueClass('since', '2026-03-05T10:00:00Z'), 'date');
  const input = single('Do it', [{ name: 'update_issue', arguments: { comment: 'needs review', assignee: 'kim', minutes: 5, limit: 7 } }]);
  const all = groundWorkflow({ ...input, spec });
  assert.deepEqual(
    all.filter(isUngroundedFinding).map((g) => g.param),
    ['assignee', 'minutes'],
    'free text and settings are counted but not findings',
  );
  assert.deepEqual(groundingCounts(all), { values: 4, user: 0, output: 0, schema: 0, none: 4, findings: 2 });
});

test('a projection or sort switch (1, 0, -1 per field) is not a value to ground; other numbers there and elsewhere still are', () => {
  const input = single('Find the active invoices, newest first.', [
    {
      name: 'search_issues',
      arguments: { query: 'invoices', projection: { name: 1, status: 0 }, sort: { created_at: -1, rank: 5 }, filter: { amount: 1 } },
    },
  ]);
  const params = groundWorkflow({ ...input, spec }).map((g) => g.param);
  assert.deepEqual(params, ['query', 'sort.rank', 'filter.amount']);
  assert.equal(one(input, 'filter.amount').source.kind, 'none', 'a 1 outside a projection or sort is an amount like any other');
});

test("schemaKeyword: the value must be the parameter's own enum, const or default (array items by index), not another parameter's", () => {
  const schema = {
    type: 'object',
    properties: {
      namespace: { type: 'string', default: 'default' },
      resourceType: { type: 'string' },
      stops: { type: 'array', items: { type: 'object', properties: { k: { type: 'number', default: 50 } } } },
    },
  };
  assert.equal(schemaKeyword(schema, 'namespace', 'default'), 'default');
  assert.equal(schemaKeyword(schema, 'resourceType', 'default'), undefined);
  assert.equal(schemaKeyword(schema, 'stops.1.k', 50), 'default');
  assert.equal(schemaKeyword(schema, 'stops.1.k', 10), undefined);
});

test('a JSON text in an output is read as its document: a number in it is found by value, at its path inside the text', () => {
  const input = single(
    'Copy the stored value to the field:2002 hash field.',
    [
      { name: 'search_issues', arguments: { query: 'stored value' } },
      { name: 'update_issue', arguments: { issueId: 'field:2002', minutes: 25 } },
    ],
    [{ result: '{"name":"migration-value","key":"value:4918","value":25,"status":"ok"}' }],
  );
  assert.deepEqual(one(input, 'minutes').source, { kind: 'output', call: 0, path: 'result.value' });
  const prose = single(
    'Do it',
    [
      { name: 'search_issues', arguments: {} },
      { name: 'update_issue', arguments: { minutes: 25 } },
    ],
    [{ result: 'value:25ms' }],
  );
  assert.equal(one(prose, 'minutes').source.kind, 'none', 'a text that is no JSON document is read as text');
});
