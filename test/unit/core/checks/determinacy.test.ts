/**
 * Determinacy (`checks/determinacy.ts`): each rule on a small case with its defect planted and the
 * same case made fair, so a rule that never fires or always fires fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkDeterminacy, type DeterminacyKind } from '../../../../src/core/checks/determinacy';
import type { GroundingInput } from '../../../../src/core/checks/grounding';
import { recites, wordRuns } from '../../../../src/core/checks/recitation';
import type { Spec } from '../../../../src/core/spec/model';

const spec: Spec = {
  name: 'chat',
  source: 'inline',
  invalidTools: [],
  tools: [
    { name: 'list_channels', inputSchema: { type: 'object', properties: { limit: { type: 'integer' } } } },
    { name: 'list_users', inputSchema: { type: 'object', properties: { limit: { type: 'integer', default: 100 } } } },
    { name: 'get_thread_replies', inputSchema: { type: 'object', properties: { channel_id: { type: 'string' }, thread_ts: { type: 'string' } } } },
    { name: 'get_engagement', inputSchema: { type: 'object', properties: { engagementId: { type: 'integer' } } } },
    { name: 'create_channel', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    { name: 'list_directory', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
    { name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  ],
};

const channels = {
  channels: [
    { id: 'C0001AAAA', name: 'support-triage', members: 12 },
    { id: 'C0002BBBB', name: 'release-notes', members: 40 },
    { id: 'C0003CCCC', name: 'random', members: 80 },
  ],
};

/** A two-call workflow: list the channels, then read replies in one of them. */
const pickWorkflow = (prompt: string, output: unknown = channels): GroundingInput => ({
  calls: [
    { name: 'list_channels', arguments: {} },
    { name: 'get_thread_replies', arguments: { channel_id: 'C0002BBBB', thread_ts: '1748855111.700393' } },
  ],
  outputs: [output, { replies: [] }],
  turns: [{ prompt, calls: [0, 1] }],
  spec,
});

const kinds = (input: GroundingInput): DeterminacyKind[] => checkDeterminacy(input).findings.map((f) => f.kind);

test('an item of a list of several must be picked by the user: a stated field, a word only it holds, or every item holding the value', () => {
  // Planted: nothing in the words picks the channel; the oracle took the second of three.
  const planted = checkDeterminacy(pickWorkflow('List the channels, then get the replies to thread 1748855111.700393 in that channel.'));
  assert.deepEqual(
    planted.findings.map((f) => [f.kind, f.callIndex, f.param, f.value]),
    [['item-not-identified', 1, 'channel_id', 'C0002BBBB']],
  );
  assert.equal(planted.fromLists, 1);
  assert.equal(planted.identified, 0);
  // Fair: the channel's name, or a word of it that no other channel has.
  assert.deepEqual(kinds(pickWorkflow('List the channels, then get the replies to thread 1748855111.700393 in "release-notes".')), []);
  assert.deepEqual(kinds(pickWorkflow('List the channels, then get the replies to thread 1748855111.700393 in the release channel.')), []);
  // A one-word field shared by nobody is still no name: a member count the user happens to say is not a pick.
  assert.deepEqual(kinds(pickWorkflow('List 40 channels, then get the replies to thread 1748855111.700393 in one of them.')), ['item-not-identified']);
  // One item, or the value in every item: nothing to choose.
  assert.deepEqual(kinds(pickWorkflow('List the channels, then get the replies to thread 1748855111.700393.', { channels: [channels.channels[1]] })), []);
  const same = { messages: ['m1', 'm2'].map((text) => ({ text, channel: 'C0002BBBB' })) };
  assert.deepEqual(kinds(pickWorkflow('List the channels, then get the replies to thread 1748855111.700393.', same)), []);
  // A JSON text in an output is read as its document.
  assert.deepEqual(kinds(pickWorkflow('List the channels, then get the replies to thread 1748855111.700393.', { content: JSON.stringify(channels) })), [
    'item-not-identified',
  ]);
});

test('a line of a listing is an item: the file must be named', () => {
  const input = (prompt: string): GroundingInput => ({
    calls: [
      { name: 'list_directory', arguments: { path: '/srv/docs' } },
      { name: 'read_file', arguments: { path: '/srv/docs/q3-report.md' } },
    ],
    outputs: [{ content: '[DIR] drafts\n[FILE] q3-report.md\n[FILE] notes.md' }, { content: '# Q3' }],
    turns: [{ prompt, calls: [0, 1] }],
    spec,
  });
  assert.deepEqual(kinds(input('List /srv/docs, then read a file from it.')), ['item-not-identified']);
  assert.deepEqual(kinds(input('List /srv/docs, then read q3-report.md from it.')), []);
});

test('a number the user says for one call is not an argument of another', () => {
  const input = (prompt: string, usersLimit: number): GroundingInput => ({
    calls: [
      { name: 'list_channels', arguments: { limit: 25 } },
      { name: 'list_users', arguments: { limit: usersLimit } },
    ],
    outputs: [channels, { users: [] }],
    turns: [{ prompt, calls: [0, 1] }],
    spec,
  });
  const planted = checkDeterminacy(input('List 25 channels, then list all users.', 25));
  assert.deepEqual(
    planted.findings.map((f) => [f.kind, f.callIndex, f.param]),
    [['reused-statement', 1, 'limit']],
  );
  assert.deepEqual(kinds(input('List 25 channels, then 25 users.', 25)), []);
  // The users' default page size needs no words.
  assert.deepEqual(kinds(input('List 25 channels, then list all users.', 100)), []);
});

test('a call about one thing answers about that thing, and an output does not contradict its arguments', () => {
  const read = (output: unknown): GroundingInput => ({
    calls: [{ name: 'get_engagement', arguments: { engagementId: 3232 } }],
    outputs: [output],
    turns: [{ prompt: 'Show me engagement 3232.', calls: [0] }],
    spec,
  });
  assert.deepEqual(kinds(read({ id: 'eng_xThNdUSykrW5', type: 'MEETING' })), ['read-mismatch']);
  assert.deepEqual(kinds(read({ id: 3232, type: 'MEETING' })), []);
  assert.deepEqual(kinds(read({ engagement: { id: 3232 } })), []);
  // An output with no identifier at all says nothing about which engagement it is.
  assert.deepEqual(kinds(read({ content: 'A meeting on Tuesday.' })), []);
  const create = (name: string): GroundingInput => ({
    calls: [{ name: 'create_channel', arguments: { name: 'q3-launch' } }],
    outputs: [{ id: 'C0009ZZZZ', name }],
    turns: [{ prompt: 'Create a channel called q3-launch.', calls: [0] }],
    spec,
  });
  assert.deepEqual(kinds(create('release-retail')), ['output-contradicts-call']);
  assert.deepEqual(kinds(create('q3-launch')), []);
});

test('turns: a name said in a later turn does not pick an item for an earlier call', () => {
  const input: GroundingInput = {
    ...pickWorkflow(''),
    turns: [
      { prompt: 'List the channels and get the replies to thread 1748855111.700393 in one.', calls: [0, 1] },
      { prompt: 'I meant release-notes.', calls: [] },
    ],
  };
  assert.deepEqual(kinds(input), ['item-not-identified']);
});

test('recitation: seven consecutive words of a description, within one sentence', () => {
  const runs = wordRuns(['List public or pre-defined channels in the workspace with pagination.']);
  assert.equal(recites('Could you list public or pre-defined channels in the workspace, please?', runs), 'list public or pre defined channels in');
  assert.equal(recites('Could you list public or pre-defined channels? In the end I want a reply.', runs), undefined);
  assert.equal(recites('List the channels.', runs), undefined);
});
