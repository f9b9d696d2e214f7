/**
 * A reply body too large to be a real reply is cut off while it streams, through both real
 * clients (`@google/genai` and `openai`): a server on 127.0.0.1 serves a 300 MB body lazily (made
 * as it is sent, under backpressure, and counted), and the call fails with a 502 naming the size
 * after a bounded number of bytes, not after holding 300 MB (it once reached 2.38 GB). The failure
 * is an ordinary failed call: retried, then counted toward the outage stop.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { MAX_LLM_REPLY_BYTES } from '../../../../src/core/bounds';
import { CallGuard, GeminiProvider, LlmHttpError, LlmOutageError, OpenAICompatibleProvider, type ChatProvider } from '../../../../src/core/llm';

const TOTAL = 300 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
let served = 0;
let requests = 0;
let declareLength = false;
let server: Server;
let origin: string;

before(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', ...(declareLength ? { 'content-length': String(TOTAL) } : {}) });
      let sent = 0;
      const pump = (): void => {
        while (sent < TOTAL) {
          const piece = sent === 0 ? Buffer.from('{"candidates":[{"content":{"parts":[{"text":"') : CHUNK;
          sent += piece.length;
          served += piece.length;
          if (!res.write(piece)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  served = 0;
  requests = 0;
  declareLength = false;
});

const providers = (): [string, ChatProvider][] => [
  ['gemini', new GeminiProvider({ apiKey: 'test-key', baseUrl: origin, model: 'gemini-2.5-flash-lite' })],
  ['openai', new OpenAICompatibleProvider({ baseUrl: `${origin}/v1`, apiKey: 'test-key', model: 'gpt-4o-mini' })],
];
const request = { messages: [{ role: 'user' as const, content: 'hello' }], temperature: 0 };

/** Bytes the kernel's socket buffers may hold beyond what the client read (loopback, generous). */
const SLACK = 32 * 1024 * 1024;

for (const streamed of [true, false]) {
  test(`a 300 MB reply ${streamed ? 'streamed without a length' : 'with its Content-Length'} fails as a 502 naming the size, after at most the limit is read (both clients)`, async () => {
    for (const [name, provider] of providers()) {
      served = 0;
      declareLength = !streamed;
      const rss0 = process.memoryUsage().rss;
      const err = await provider.complete({ ...request, signal: new AbortController().signal }).then(
        () => assert.fail(`${name}: the call succeeded`),
        (e: unknown) => e,
      );
      assert.ok(err instanceof LlmHttpError, `${name}: ${String(err)}`);
      assert.equal(err.status, 502, name);
      assert.match(
        err.message,
        streamed ? /reply too large: over [\d,]+ bytes, more than the 8 MiB read of one reply/ : /reply too large: 314,572,800 bytes declared/,
        name,
      );
      // Let the server notice the closed connection before counting.
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(served <= MAX_LLM_REPLY_BYTES + SLACK, `${name}: ${served} bytes served`);
      assert.ok(served < TOTAL / 4, `${name}: ${served} bytes served`);
      assert.ok(process.memoryUsage().rss - rss0 < 256 * 1024 * 1024, `${name}: memory grew by ${process.memoryUsage().rss - rss0} bytes`);
    }
  });
}

test('the oversized reply is a failed call: retried, then counted toward the outage stop', async () => {
  for (const [name, provider] of providers()) {
    requests = 0;
    const guard = new CallGuard({ retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1, outageCalls: 2 } });
    const signal = new AbortController().signal;
    const first = await guard.call(provider, { ...request, signal }).catch((e: unknown) => e);
    assert.ok(first instanceof LlmHttpError && /reply too large/.test(first.message), `${name}: ${String(first)}`);
    assert.equal(requests, 2, `${name}: one retry`);
    const second = await guard.call(provider, { ...request, signal }).catch((e: unknown) => e);
    assert.ok(second instanceof LlmOutageError, `${name}: ${String(second)}`);
    assert.match(second.message, /reply too large/);
  }
});
