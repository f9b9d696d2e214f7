/**
 * A process that makes a round of calls in batch mode against a fake OpenAI batch server, for the
 * kill/resume test (`batchResume.test.ts`): `node batchChild.js --batch-child <baseUrl> <dir> <n>`
 * prints `{texts, summary}` as JSON when every call is answered. Imported for `batchRequest`, it
 * does nothing.
 */
import { BatchProvider } from '../../../../src/core/llm/batch/batchProvider';
import { OpenAIBatchBackend } from '../../../../src/core/llm/batch/openaiBatch';
import type { ChatRequest } from '../../../../src/core/llm/types';

/** The model the batch tests name. */
export const BATCH_TEST_MODEL = 'gpt-4o-mini';
/** The key the batch tests' fake accepts. */
export const BATCH_TEST_KEY = 'sk-batch-test';

/** The i-th request of a round: the fake's responder answers `{n: i}`. */
export function batchRequest(i: number, signal: AbortSignal = new AbortController().signal): ChatRequest {
  return {
    system: 'You count.',
    messages: [{ role: 'user', content: `item ${i}` }],
    jsonSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false },
    temperature: 0.7,
    signal,
  };
}

async function main(baseUrl: string, dir: string, n: number): Promise<void> {
  const backend = new OpenAIBatchBackend({ model: BATCH_TEST_MODEL, baseUrl, apiKey: BATCH_TEST_KEY });
  const provider = new BatchProvider({ backend, dir, firstPollMs: 20, maxPollMs: 50, flushMs: 20 });
  const replies = await Promise.all(Array.from({ length: n }, (_, i) => provider.complete(batchRequest(i))));
  process.stdout.write(JSON.stringify({ texts: replies.map((r) => r.text), summary: provider.summary() }));
  await provider.close();
}

if (require.main === module && process.argv[2] === '--batch-child') {
  const [baseUrl, dir, n] = process.argv.slice(3);
  main(baseUrl ?? '', dir ?? '', Number(n)).catch((e: unknown) => {
    process.stderr.write(`batch child: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
