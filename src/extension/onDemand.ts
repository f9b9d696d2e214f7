/**
 * Loads `dist/deferred.js` (the command implementations and the LLM clients, see `deferred.ts`;
 * the bundle is shared with the CLI, see src/deferredBundle.ts) the first time one is needed.
 * esbuild leaves the `require` below alone (`esbuild.mjs` marks it external), so the two bundles
 * stay apart. Anything shared must cross as plain data: each bundle has its own copy of core (an
 * error class of one is not `instanceof` the other's).
 */
import type * as Deferred from './deferred';
import type * as Bundle from '../deferredBundle';

let loaded: typeof Deferred | undefined;

/** The deferred bundle, loaded (synchronously, once) on first call. */
export function deferred(): typeof Deferred {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a separate bundle beside this one in dist/, loaded on first use
  loaded ??= (require('./deferred.js') as typeof Bundle).extensionPart();
  return loaded;
}
