/**
 * Why a live listing failed, and the words it says it with: the error type every listing throws,
 * and the helpers that turn phases, durations, server errors and URLs into one short line.
 * A leaf module (nothing here imports the listing), so the listing and the `live.ts` façade can
 * both import it without an import cycle.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ChildStop } from './child';

/** Facts attached to a {@link LiveListError}. */
export interface LiveListErrorDetails {
  /** Name of the server definition. */
  server: string;
  /** The stdio child's pid, when one was spawned. */
  pid?: number;
  /** Last ~4 KB of the child's stderr, secrets masked. */
  stderrTail?: string;
  exitCode?: number | null;
  signal?: string | null;
  /** How the child was stopped; set once it has been reaped, before the error reaches the caller. */
  stopped?: ChildStop;
  cause?: unknown;
}

/** Why a listing failed. */
export type LiveListErrorKind =
  | 'config' // the definition cannot be started (no command, bad URL, missing cwd)
  | 'spawn' // the command could not be started at all
  | 'exited' // a stdio server exited before it finished answering
  | 'connect' // an HTTP/SSE endpoint could not be reached or refused
  | 'timeout' // the server did not answer in time
  | 'aborted' // the caller cancelled
  | 'protocol'; // the server answered, but wrongly (error reply, bad result, endless paging)

/** A listing failure with a one-line message fit for a notification or a CLI error line. */
export class LiveListError extends Error {
  override readonly name = 'LiveListError';
  constructor(
    readonly kind: LiveListErrorKind,
    message: string,
    readonly details: LiveListErrorDetails,
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }
  /** Name of the server definition that failed. */
  get server(): string {
    return this.details.server;
  }
  /** The stdio child's pid, when one was spawned (it has been reaped when the error is thrown). */
  get pid(): number | undefined {
    return this.details.pid;
  }
  /** Last ~4 KB of the stdio server's stderr, secrets masked. */
  get stderrTail(): string | undefined {
    return this.details.stderrTail;
  }
}

/** The error of a listing the caller cancelled. */
export function abortedError(name: string, details: LiveListErrorDetails = { server: name }): LiveListError {
  return new LiveListError('aborted', `listing the tools of server "${name}" was cancelled`, details);
}

/** How far a listing got: waiting for `initialize`, or paging through `tools/list`. */
export type Phase = 'initialize' | 'tools/list';

/** What a listing was waiting for, for a timeout message (`tools/list (page 3)`). */
export function phaseText(phase: Phase, page: number): string {
  return phase === 'initialize' ? 'initialize' : page === 0 ? 'tools/list' : `tools/list (page ${page + 1})`;
}

/** `30000` → `30s`, `1500` → `1.5s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

/** Cuts `text` to `max` characters, marking the cut with `…`. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Collapses multi-line text (stderr, HTML error pages) into one line. */
export function oneLine(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' | ');
}

/** An error and its causes as one short line (`fetch failed (connect ECONNREFUSED 127.0.0.1:9)`). */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    if (current instanceof AggregateError && current.errors.length > 0) {
      parts.push(current.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join(', '));
      break;
    }
    let text = current instanceof Error ? current.message || current.name : String(current);
    if (current instanceof StreamableHTTPError && current.code !== undefined && current.code > 0) {
      // The SDK's text is "Streamable HTTP error: Error POSTing to endpoint: <body>"; the status says more.
      text = `HTTP ${current.code}: ${text.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, '')}`;
    }
    if (text && !parts.some((p) => p.includes(text))) parts.push(text);
    current = current instanceof Error ? current.cause : undefined;
  }
  const [head = 'unknown error', ...rest] = parts;
  return clip(oneLine(rest.length ? `${head} (${rest.join('; ')})` : head), 400);
}

/** A URL fit for messages and provenance: no user info, query or fragment. */
export function safeUrl(href: string): string {
  try {
    const url = new URL(href);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return clip(href.replace(/[?#].*$/, ''), 200);
  }
}
