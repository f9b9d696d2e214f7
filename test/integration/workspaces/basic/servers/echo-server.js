#!/usr/bin/env node
// A tiny, harmless MCP server over stdio (newline-delimited JSON-RPC 2.0), for tests only.
// No dependencies; reads stdin, writes stdout, touches nothing else.
'use strict';
const readline = require('node:readline');

const tools = [
  {
    name: 'echo',
    description: 'Return the given text unchanged.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'Text to echo back.' } },
      required: ['text'],
    },
  },
  {
    name: 'add',
    description: 'Add two numbers.',
    inputSchema: {
      type: 'object',
      properties: {
        a: { type: 'number', description: 'First addend.' },
        b: { type: 'number', description: 'Second addend.' },
      },
      required: ['a', 'b'],
    },
  },
];

function send(msg) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
}

function handle(req) {
  const { id, method, params } = req;
  if (id === undefined) return; // a notification (e.g. notifications/initialized)
  switch (method) {
    case 'initialize':
      return send({
        id,
        result: {
          protocolVersion: (params && params.protocolVersion) || '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'fixture-echo', version: '1.0.0' },
        },
      });
    case 'ping':
      return send({ id, result: {} });
    case 'tools/list':
      return send({ id, result: { tools } });
    case 'tools/call': {
      const args = (params && params.arguments) || {};
      if (params && params.name === 'echo') {
        return send({ id, result: { content: [{ type: 'text', text: String(args.text ?? '') }] } });
      }
      if (params && params.name === 'add') {
        return send({ id, result: { content: [{ type: 'text', text: String(Number(args.a) + Number(args.b)) }] } });
      }
      return send({ id, result: { isError: true, content: [{ type: 'text', text: `unknown tool ${params && params.name}` }] } });
    }
    default:
      return send({ id, error: { code: -32601, message: `method not found: ${method}` } });
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    return send({ id: null, error: { code: -32700, message: 'parse error' } });
  }
  handle(req);
});
