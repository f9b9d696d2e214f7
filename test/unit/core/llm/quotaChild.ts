/**
 * A process that makes `n` calls through the real Gemini client under `--rpm`-style limits with
 * the shared quota of `cacheDir`, for the two-process quota test (`sharedQuota.test.ts`):
 * `node quotaChild.js --quota-child <baseUrl> <cacheDir> <n> <rpm> <windowMs>` prints
 * `{replies, retries}` as JSON. Imported, it does nothing.
 */
import { createCallGuard } from '../../../../src/core/llm/client';
import { createProvider } from '../../../../src/core/llm/factory';
import { LlmStats } from '../../../../src/core/llm/stats';

/** The key the quota tests' fake accepts. */
export const QUOTA_TEST_KEY = 'quota-test-key';

async function main(baseUrl: string, cacheDir: string, n: number, rpm: number, windowMs: number): Promise<void> {
  const chat = createProvider({ provider: 'gemini', baseUrl, apiKey: QUOTA_TEST_KEY });
  const guard = createCallGuard({ chat, cacheDir, rpm, concurrency: 4, limits: { rpmWindowMs: windowMs } });
  const stats = new LlmStats();
  const signal = new AbortController().signal;
  const replies = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      guard.call(chat, { messages: [{ role: 'user', content: `item ${i} of ${process.pid}` }], temperature: 0, signal }, stats),
    ),
  );
  process.stdout.write(JSON.stringify({ replies: replies.length, retries: stats.snapshot().retries }));
}

if (require.main === module && process.argv[2] === '--quota-child') {
  const [baseUrl, cacheDir, n, rpm, windowMs] = process.argv.slice(3);
  main(baseUrl ?? '', cacheDir ?? '', Number(n), Number(rpm), Number(windowMs)).catch((e: unknown) => {
    process.stderr.write(`quota child: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
