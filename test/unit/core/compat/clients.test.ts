/** Client-compatibility findings on real specs: Gemini, OpenAI strict mode, VS Code's tool limit. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FINDING_CODES } from '../../../../src/core/complexity';
import { clientFindings } from '../../../../src/core/compat/clients';
import { toFunctionParameters } from '../../../../src/core/llm/toolCalling';
import type { Spec } from '../../../../src/core/spec/model';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { specsDir } from '../../fixturePaths';

function fixture(name: string): Spec {
  const load = loadSpecText(readFileSync(join(specsDir, name), 'utf8'), name);
  assert.ok(load.ok);
  return load.spec;
}
const spec = (tools: unknown[]): Spec => {
  const load = loadSpecText(JSON.stringify({ tools }), 'x.json');
  assert.ok(load.ok);
  return load.spec;
};

test('every client finding code cites its client documentation', () => {
  for (const code of ['gemini-schema', 'openai-strict-schema', 'vscode-tool-limit'] as const) {
    assert.match(FINDING_CODES[code].source, /^https:\/\//, code);
  }
});

test('vscode-tool-limit: Twilio (197 tools) is over the 128 per request, GitHub (86) is not', () => {
  const twilio = clientFindings(fixture('twilio-api-v2010.json'), ['vscode']);
  assert.deepEqual(
    twilio.map((f) => f.summary),
    ['This server has 197 tools, more than the 128 VS Code allows in one chat request.'],
  );
  assert.deepEqual(clientFindings(fixture('github-official-all.json'), ['vscode']), []);
});

test('gemini-schema says what toFunctionParameters rewrites ($ref, additionalProperties), and nothing for a plain schema', () => {
  const tools = [
    {
      name: 'refs',
      inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } }, additionalProperties: false },
    },
    { name: 'plain', inputSchema: { type: 'object', properties: { a: { type: 'string', default: 'x' } } } },
  ];
  const found = clientFindings(spec(tools), ['gemini']);
  assert.deepEqual(
    found.map((f) => [f.tool, f.summary]),
    [['refs', 'Gemini needs this schema rewritten ($ref inlined, additionalProperties dropped).']],
  );
  // One home for the rules: the finding lists exactly the conversion's warnings.
  assert.deepEqual(toFunctionParameters(tools[0]?.inputSchema).warnings, ['$ref inlined', 'additionalProperties dropped']);
});

test('openai-strict-schema: optional properties, missing additionalProperties:false and unsupported keywords; a strict schema passes', () => {
  const tools = [
    {
      name: 'loose',
      inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { oneOf: [{ type: 'string' }, { type: 'number' }] } }, required: ['b'] },
    },
    { name: 'strict', inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false } },
  ];
  const found = clientFindings(spec(tools), ['openai']);
  assert.deepEqual(
    found.map((f) => [f.tool, f.summary]),
    [['loose', 'OpenAI strict mode refuses this schema: no `additionalProperties: false`, optional property "a", `oneOf`.']],
  );
});

test('clients not asked for are not checked', () => {
  assert.deepEqual(clientFindings(fixture('twilio-api-v2010.json'), []), []);
});
