/** The approval of a server launch covers everything that decides what runs, and shows it resolved. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServerDefinition } from '../../../../src/core/spec/configs/types';
import { describeLaunch } from '../../../../src/core/spec/launchApproval';

const base: ServerDefinition = {
  name: 'files',
  file: '/ws/.vscode/mcp.json',
  format: 'vscode-mcp-json',
  transport: 'stdio',
  transportInferred: false,
  command: 'node',
  args: ['${workspaceFolder}/servers/files.js', '--root', '${workspaceFolder}'],
  env: { LOG_LEVEL: 'info', GITHUB_TOKEN: '${input:token}' },
  headers: {},
  disabled: false,
  variables: [],
};
const key = (d: ServerDefinition): string => describeLaunch(d, '/ws').key;

test('a change to the environment, cwd, args, command or header names asks again', () => {
  const k = key(base);
  assert.equal(key({ ...base }), k, 'stable');
  assert.notEqual(key({ ...base, env: { ...base.env, NODE_OPTIONS: '--require /tmp/evil.js' } }), k, 'an added variable');
  assert.notEqual(key({ ...base, env: { ...base.env, LOG_LEVEL: 'debug' } }), k, 'a changed value');
  assert.notEqual(key({ ...base, cwd: '/elsewhere' }), k);
  assert.notEqual(key({ ...base, args: [...base.args, '--write'] }), k);
  assert.notEqual(key({ ...base, command: 'bash' }), k);
  const http: ServerDefinition = { ...base, transport: 'http', command: undefined, args: [], env: {}, url: 'https://mcp.example/mcp', headers: {} };
  const hk = key(http);
  assert.notEqual(key({ ...http, headers: { Authorization: 'Bearer ${input:t}' } }), hk, 'a header added');
  assert.equal(
    key({ ...http, headers: { Authorization: 'Bearer a' } }),
    key({ ...http, headers: { Authorization: 'Bearer b' } }),
    'a header value (a token) is not part of it',
  );
});

test('the description shows the launch resolved, with secrets neither resolved nor shown', () => {
  const d = describeLaunch({ ...base, env: { ...base.env, API_KEY: 'sk-live-123', NODE_OPTIONS: '--require x' } }, '/ws');
  assert.deepEqual(d.lines, [
    'Runs: node /ws/servers/files.js --root /ws',
    'In: /ws',
    'Environment: API_KEY=••••••, GITHUB_TOKEN=${input:token}, LOG_LEVEL=info, NODE_OPTIONS=--require x',
  ]);
  assert.ok(!d.lines.join('\n').includes('${workspaceFolder}'));
  const http = describeLaunch(
    { ...base, transport: 'http', command: undefined, args: [], env: {}, url: 'https://mcp.example/mcp', headers: { 'X-Api-Key': 'k', Authorization: 'b' } },
    '/ws',
  );
  assert.deepEqual(http.lines, ['Connects to: https://mcp.example/mcp (Streamable HTTP)', 'Headers: Authorization, X-Api-Key']);
});
