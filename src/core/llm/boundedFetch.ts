/**
 * A `fetch` whose response bodies are read at most up to a size: past it the body errors while it
 * is being read (the rest is never downloaded, the connection is cancelled) with an
 * `LlmHttpError` 502 that names the size, so the call fails like any misbehaving server's: it is
 * retried, and counted toward the CallGuard's outage stop. Both clients take it as their fetch
 * (`@google/genai` through `geminiFetch`, `openai` through its `fetch` option), for successful
 * replies and error bodies alike. The limit is `MAX_LLM_REPLY_BYTES` in `bounds.ts`.
 */
import { LlmHttpError } from './errors';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** `fetchImpl` with every response body cut off at `maxBytes` (an error, not a silent truncation). */
export function boundedFetch(fetchImpl: Fetch, maxBytes: number, label: string): Fetch {
  return async (input, init) => boundedResponse(await fetchImpl(input, init), maxBytes, label);
}

const mib = (n: number): string => `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;

/** The error a body over the limit reads as. */
export function replyTooLarge(label: string, maxBytes: number, read: number, declared?: number): LlmHttpError {
  const size = declared !== undefined && declared > read ? `${declared.toLocaleString('en-US')} bytes declared` : `over ${read.toLocaleString('en-US')} bytes`;
  return new LlmHttpError({ status: 502, message: `${label} reply too large: ${size}, more than the ${mib(maxBytes)} read of one reply; reading stopped` });
}

/** `res` with a body that errors once more than `maxBytes` arrive (or at once when Content-Length says so). */
export function boundedResponse(res: Response, maxBytes: number, label: string): Response {
  const source = res.body;
  if (!source) return res;
  const declaredText = res.headers.get('content-length');
  const declared = declaredText !== null && /^\d+$/.test(declaredText.trim()) ? Number(declaredText) : undefined;
  const reader = source.getReader();
  let read = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (declared !== undefined && declared > maxBytes) {
        const err = replyTooLarge(label, maxBytes, read, declared);
        controller.error(err);
        await reader.cancel(err).catch(() => undefined);
        return;
      }
      const chunk = await reader.read();
      if (chunk.done) {
        controller.close();
        return;
      }
      read += chunk.value.byteLength;
      if (read > maxBytes) {
        const err = replyTooLarge(label, maxBytes, read);
        controller.error(err);
        await reader.cancel(err).catch(() => undefined);
        return;
      }
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
