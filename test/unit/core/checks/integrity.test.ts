/** Referential integrity: which values are ID-like, where they may come from, and the multi-turn view. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appearsIn, checkIntegrity, containsToken, idLikeReason, idLikeValues, isIdName } from '../../../../src/core/checks/integrity';
import type { Spec } from '../../../../src/core/spec/model';

const UUID = '7f1d3c55-5b1e-4c1a-9a53-2c1f0e8b9d11';

const idCases: [string, unknown, ReturnType<typeof idLikeReason>][] = [
  ['channel_id', 'C024BE91L', 'name'],
  ['CallSid', 'CA1234abcd', 'name'],
  ['pageId', 'abc', 'name'],
  ['issue_id', 42, 'name'],
  ['ids', 'x9z', 'name'],
  ['anything', UUID, 'uuid'],
  ['file', '/home/ana/report q3.txt', 'path'],
  ['target', './src/index.ts', 'path'],
  ['ref', 'C024BE91L', 'name'],
  ['label', 'AC3f9e21', 'mixed'],
  ['label', 'user42', 'mixed'],
  ['name', 'payments-api', 'slug'],
  ['key', 'user:1042', 'name'],
  ['item', 'user:1042', 'mixed'],
  ['item', 'alpha-beta', 'slug'],
  ['full', 'acme/widgets', 'slug'],
  // not ID-like
  ['query', 'error logs today', undefined],
  ['owner', 'acme', undefined],
  ['encoding', 'utf8', undefined],
  ['since', '2026-01-01', undefined],
  ['at', '2026-01-01T10:00:00Z', undefined],
  ['version', '1.4.2', undefined],
  ['color', '#ff0000', undefined],
  ['width', '120px', undefined],
  ['url', 'https://example.com/a/b', undefined],
  ['email', 'ana@example.com', undefined],
  ['user_id', 'ana@example.com', 'name'],
  ['locale', 'en-US', undefined],
  ['mime', 'application/json', undefined],
  ['count', 42, undefined],
  ['flag', true, undefined],
  ['id', 'ab', undefined],
];

for (const [param, value, expected] of idCases) {
  test(`idLikeReason(${param}, ${JSON.stringify(value)}) = ${String(expected)}`, () => {
    assert.equal(idLikeReason(param, value), expected);
  });
}

test('isIdName: suffixes in every naming style, singularised', () => {
  for (const n of ['id', 'user_id', 'userId', 'AccountSid', 'page-id', 'file.path', 'entityIds', 'api_key', 'commit_sha']) assert.ok(isIdName(n), n);
  for (const n of ['name', 'title', 'identity', 'keyboard', 'paths_count']) assert.ok(!isIdName(n), n);
});

test('idLikeValues walks nested arguments with dotted paths; arrays are judged by their name', () => {
  const found = idLikeValues({ parent: { page_id: UUID }, paths: ['/a/b.txt', '/c/d.txt'], title: 'hello world', limit: 5 });
  assert.deepEqual(found, [
    { param: 'parent.page_id', value: UUID },
    { param: 'paths.0', value: '/a/b.txt' },
    { param: 'paths.1', value: '/c/d.txt' },
  ]);
  assert.deepEqual(idLikeValues({ mode: 'database_id' }, new Set(['database_id'])), []);
});

test('containsToken respects identifier boundaries', () => {
  assert.ok(containsToken('channel C024BE91L created', 'C024BE91L'));
  assert.ok(containsToken('[FILE] /a/b.txt', '/a/b.txt'));
  assert.ok(!containsToken('xC024BE91Ly', 'C024BE91L'));
  assert.ok(!containsToken('abc1234', 'abc123'));
});

test('appearsIn: numbers need a leaf of their own (a count or "page-2" is not the id 2)', () => {
  assert.ok(!appearsIn(2, ['payroll-page-2'], []));
  assert.ok(appearsIn(2, ['2'], []));
  assert.ok(appearsIn(1234, ['merged PR 1234 into main'], []));
  assert.ok(appearsIn(2, [], ['open page 2 please']));
  // a path from a directory the user named plus a file name an output listed
  assert.ok(appearsIn('/home/ana/docs/plan.md', ['[FILE] plan.md'], ['look in /home/ana/docs']));
  assert.ok(!appearsIn('/home/ana/docs/plan.md', ['[FILE] other.md'], ['look in /home/ana/docs']));
});

const calls = [
  { name: 'list_channels', arguments: {} },
  { name: 'get_history', arguments: { channel_id: 'C024BE91L' } },
  { name: 'post_message', arguments: { channel_id: 'C024BE91L', thread: 'T99887766', text: 'Deploy done' } },
];

test('checkIntegrity: a chained id grounded in an earlier output passes', () => {
  const outputs = [{ channels: [{ id: 'C024BE91L', name: 'general' }] }, { messages: [{ ts: 'T99887766' }] }, { ok: true }];
  assert.deepEqual(checkIntegrity({ calls, outputs, prompt: 'Post to general' }), []);
});

test('checkIntegrity: ids from nowhere are violations; the first call is exempt; later outputs do not count', () => {
  const outputs = [{ channels: [{ id: 'CXXXXXXX1', name: 'general' }] }, { messages: [] }, { echo: 'C024BE91L T99887766' }];
  const first = [{ name: 'get_history', arguments: { channel_id: 'C0NOWHERE1' } }, ...calls.slice(1)];
  assert.deepEqual(checkIntegrity({ calls: first, outputs, prompt: 'Post to general' }), [
    { callIndex: 1, param: 'channel_id', value: 'C024BE91L' },
    { callIndex: 2, param: 'channel_id', value: 'C024BE91L' },
    { callIndex: 2, param: 'thread', value: 'T99887766' },
  ]);
});

test('checkIntegrity: the user prompt grounds values', () => {
  const outputs = [{ channels: [] }, { messages: [] }, {}];
  assert.deepEqual(checkIntegrity({ calls, outputs, prompt: 'In channel C024BE91L reply to thread T99887766' }), []);
});

test("checkIntegrity: multi-turn view only sees prompts up to the call's turn", () => {
  const outputs = [{ channels: [{ id: 'C024BE91L' }] }, { messages: [] }, {}];
  const turns = [
    { prompt: 'List channels and show history', calls: [0, 1] },
    { prompt: 'Reply in thread T99887766', calls: [2] },
  ];
  assert.deepEqual(checkIntegrity({ calls, outputs, prompt: 'whole task mentions T99887766', turns }), []);
  const early = [
    { prompt: 'List channels', calls: [0] },
    { prompt: 'Show history and reply', calls: [1, 2] },
    { prompt: 'Oh, and the thread is T99887766', calls: [] },
  ];
  assert.deepEqual(checkIntegrity({ calls, outputs, prompt: 'whole task mentions T99887766', turns: early }), [
    { callIndex: 2, param: 'thread', value: 'T99887766' },
  ]);
});

test('checkIntegrity: with the spec, values the schema itself lists are exempt', () => {
  const spec: Spec = {
    name: 's',
    source: 'inline',
    invalidTools: [],
    tools: [{ name: 'move', inputSchema: { type: 'object', properties: { parent_type: { enum: ['database_id', 'page_id'] } } } }],
  };
  const wf = [
    { name: 'move', arguments: {} },
    { name: 'move', arguments: { parent_type: 'database_id' } },
  ];
  assert.equal(checkIntegrity({ calls: wf, outputs: [{}, {}], prompt: 'x' }).length, 1);
  assert.deepEqual(checkIntegrity({ calls: wf, outputs: [{}, {}], prompt: 'x', spec }), []);
});
