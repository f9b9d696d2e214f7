/** Variable references: finding every syntax exactly, and resolving without dropping what cannot be resolved. */
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../../../src/core/spec/configs';
import type { ServerDefinition } from '../../../../src/core/spec/configs/types';
import { findVariables, resolveVariables } from '../../../../src/core/spec/configs/variables';

test('findVariables: every syntax, classified, once per occurrence', () => {
  const refs = findVariables(
    '${workspaceFolder}/a ${workspaceFolder:web} ${env:HOME} ${input:api-key} ${TOKEN} ${HOST:-localhost:8080} ${EMPTY:-} {env:OC} ${TOKEN}',
  );
  assert.deepEqual(refs, [
    { kind: 'workspaceFolder', name: '', raw: '${workspaceFolder}' },
    { kind: 'workspaceFolder', name: 'web', raw: '${workspaceFolder:web}' },
    { kind: 'env', name: 'HOME', raw: '${env:HOME}' },
    { kind: 'input', name: 'api-key', raw: '${input:api-key}' },
    { kind: 'env', name: 'TOKEN', raw: '${TOKEN}' },
    { kind: 'env', name: 'HOST', raw: '${HOST:-localhost:8080}', defaultValue: 'localhost:8080' },
    { kind: 'env', name: 'EMPTY', raw: '${EMPTY:-}', defaultValue: '' },
    { kind: 'env', name: 'OC', raw: '{env:OC}' },
    { kind: 'env', name: 'TOKEN', raw: '${TOKEN}' },
  ]);
});

test('findVariables: ${env:X} is not also counted as {env:X}; predefined and command variables are "other"', () => {
  assert.equal(findVariables('${env:A}').length, 1);
  assert.deepEqual(
    findVariables('${userHome} ${config:editor.tabSize} ${command:pick} ${pathSeparator} ${{ secrets.KEY }} ${}').map((v) => [v.kind, v.name]),
    [
      ['other', 'userHome'],
      ['other', 'config:editor.tabSize'],
      ['other', 'command:pick'],
      ['other', 'pathSeparator'],
      ['other', 'secrets.KEY'],
      ['other', ''],
    ],
  );
  assert.deepEqual(findVariables('plain text, $HOME, {not:env}, ${'), []);
});

test('definition variables cover command, args, env, cwd, url and headers, in that order', () => {
  const result = parseConfig(
    JSON.stringify({
      servers: {
        s: {
          type: 'http',
          command: '${env:BIN}',
          args: ['${A}'],
          env: { K: '${input:k}' },
          cwd: '${workspaceFolder}',
          url: 'https://${HOST:-h}/mcp',
          headers: { X: '{env:H}' },
        },
      },
    }),
    '.vscode/mcp.json',
  );
  assert.deepEqual(
    result.definitions[0]?.variables.map((v) => v.raw),
    ['${env:BIN}', '${A}', '${input:k}', '${workspaceFolder}', '${HOST:-h}', '{env:H}'],
  );
});

function def(over: Partial<ServerDefinition>): ServerDefinition {
  return {
    name: 's',
    file: 'f',
    format: 'vscode-mcp-json',
    transport: 'stdio',
    transportInferred: false,
    command: 'node',
    args: [],
    env: {},
    headers: {},
    disabled: false,
    variables: [],
    ...over,
  };
}

const ws = resolve('/work/space/proj');

test('resolveVariables substitutes workspace folder, env (with defaults) and inputs', () => {
  const original = def({
    command: '${workspaceFolder}/bin/server',
    args: [
      '${CLAUDE_PROJECT_DIR:-.}/dist/index.js',
      '--host=${HOST:-graph.example.com}',
      '--empty=${EMPTY:-fallback}',
      '--set=${SET:-unused}',
      'rel/script.py',
    ],
    env: { TOKEN: '${env:TOKEN}', KEY: '${input:key}', OC: '{env:TOKEN}' },
  });
  const snapshot = structuredClone(original);
  const { definition, unresolved } = resolveVariables(original, {
    workspaceFolder: ws,
    env: { TOKEN: 't0k', EMPTY: '', SET: 'given' },
    inputs: { key: 'k3y' },
  });
  assert.equal(definition.command, `${ws}/bin/server`);
  assert.deepEqual(definition.args, ['./dist/index.js', '--host=graph.example.com', '--empty=fallback', '--set=given', 'rel/script.py']);
  assert.deepEqual(definition.env, { TOKEN: 't0k', KEY: 'k3y', OC: 't0k' });
  assert.deepEqual(unresolved, []);
  assert.deepEqual(definition.variables, []);
  // A stdio server without cwd runs in the workspace folder, so relative script paths (left as written) work.
  assert.equal(definition.cwd, ws);
  assert.deepEqual(original, snapshot, 'the input definition is not changed');
});

test('resolveVariables lists the values it took from the environment and inputs (not defaults, not folders) as secrets', () => {
  const { definition } = resolveVariables(
    def({
      args: ['${env:API_TOKEN}', '--org=${input:org}', '${workspaceFolder}/x', '--level=${LEVEL:-info}', '${HOSTNAME}'],
      headers: { A: 'Bearer {env:API_TOKEN}' },
    }),
    { workspaceFolder: ws, env: { API_TOKEN: 'tok-123456', HOSTNAME: 'box-7' }, inputs: { org: 'acme-secret' } },
  );
  assert.deepEqual(definition.args, ['tok-123456', '--org=acme-secret', `${ws}/x`, '--level=info', 'box-7']);
  assert.deepEqual(definition.secretValues, ['tok-123456', 'acme-secret', 'box-7']);
});

test('unresolved inputs and env vars stay as written and are reported once each', () => {
  const { definition, unresolved } = resolveVariables(
    {
      ...def({ transport: 'http', url: 'https://${input:domain}/mcp' }),
      command: undefined,
      headers: { Authorization: 'Bearer ${input:token}', 'X-Again': '${input:token}', 'X-Env': '${MISSING}' },
    },
    { workspaceFolder: ws, env: {}, inputs: { other: 'x' } },
  );
  assert.equal(definition.url, 'https://${input:domain}/mcp');
  assert.deepEqual(definition.headers, { Authorization: 'Bearer ${input:token}', 'X-Again': '${input:token}', 'X-Env': '${MISSING}' });
  // Reported in the order met (url, then headers), each distinct text once.
  assert.deepEqual(
    unresolved.map((v) => [v.kind, v.name]),
    [
      ['input', 'domain'],
      ['input', 'token'],
      ['env', 'MISSING'],
    ],
  );
  assert.equal(definition.variables.length, 4, 'what is left is still listed on the definition');
  assert.equal(definition.cwd, undefined, 'remote servers get no cwd');
});

test('cwd: relative is resolved against the workspace folder; ${workspaceFolder}/.. is normalised; unresolved is left alone', () => {
  const cwdOf = (cwd: string, env: Record<string, string> = {}) => resolveVariables(def({ cwd }), { workspaceFolder: ws, env }).definition.cwd;
  assert.equal(cwdOf('..'), resolve(ws, '..'));
  assert.equal(cwdOf('test/mcp'), join(ws, 'test', 'mcp'));
  assert.equal(cwdOf('${workspaceFolder}/../vscode/test/mcp'), resolve(ws, '..', 'vscode', 'test', 'mcp'));
  assert.equal(cwdOf('/abs/dir'), resolve('/abs/dir'));
  assert.equal(cwdOf('${env:NOPE}/x'), '${env:NOPE}/x');
  assert.equal(cwdOf('${env:BASE}/x', { BASE: '/opt' }), resolve('/opt/x'));
});

test('${workspaceFolder:name} resolves only for this folder; ${userHome} needs userHome; ${pathSeparator} is the separator', () => {
  const { definition, unresolved } = resolveVariables(
    def({ args: ['${workspaceFolder:proj}', '${workspaceFolder:other}', '${userHome}/x', '${workspaceFolderBasename}'] }),
    { workspaceFolder: ws, env: {} },
  );
  assert.deepEqual(definition.args, [ws, '${workspaceFolder:other}', '${userHome}/x', 'proj']);
  assert.deepEqual(
    unresolved.map((v) => v.raw),
    ['${workspaceFolder:other}', '${userHome}'],
  );
  assert.equal(resolveVariables(def({ args: ['${userHome}'] }), { workspaceFolder: ws, env: {}, userHome: '/home/me' }).definition.args[0], '/home/me');
});

test('the Claude Code fixture resolves with defaults when its env vars are unset', () => {
  const text = JSON.stringify({
    mcpServers: {
      ig: { command: 'node', args: ['${CLAUDE_PROJECT_DIR:-.}/index.js'], env: { TOKEN: '${IG_TOKEN}', HOST: '${IG_HOST:-graph.instagram.com}' } },
    },
  });
  const d = parseConfig(text, '.mcp.json').definitions[0];
  assert.ok(d);
  const { definition, unresolved } = resolveVariables(d, { workspaceFolder: ws, env: {} });
  assert.deepEqual(definition.args, ['./index.js']);
  assert.deepEqual(definition.env, { TOKEN: '${IG_TOKEN}', HOST: 'graph.instagram.com' });
  assert.deepEqual(
    unresolved.map((v) => v.raw),
    ['${IG_TOKEN}'],
  );
});
