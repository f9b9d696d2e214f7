/**
 * The public face of live listing: callers import from `spec/live`. The work is done in `live/`:
 * `list.ts` (connect, page through `tools/list`, the Streamable HTTP → SSE fallback),
 * `errors.ts` (the error type and its message text), `child.ts` (starting and stopping process
 * trees), `stdioTransport.ts` and `deadline.ts`.
 */
export { describeTarget, listServerTools, type LiveListing, type LiveListOptions } from './live/list';
export { LiveListError, type LiveListErrorDetails, type LiveListErrorKind } from './live/errors';
export type { ChildStop } from './live/child';
