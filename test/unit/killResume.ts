/**
 * One kill/resume trial of the real CLI against a fake LLM server, shared by the resume unit
 * test and `bench/resume.ts`: start `agent-seer generate` as a child process, kill it (SIGKILL or
 * SIGINT) when told, run the same command again to the end, and count the requests of the second
 * run that repeat (same body hash) a request whose answer the server had finished sending before
 * the kill — replies the first run had in hand and should not pay for twice.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../fakes/fakeLlmServer';
import { firstPrompt, type Responder } from './pipelineResponder';

/**
 * A reply counts as "arrived" when the server finished sending it at least this long before the
 * kill: the time it takes to cross the loopback, be parsed by the SDK and reach the disk. Replies
 * inside this window may honestly be lost with the process.
 */
export const ARRIVAL_GRACE_MS = 100;

/** What one trial saw. */
export interface TrialResult {
  signal: 'SIGKILL' | 'SIGINT';
  /** Requests of the first run, and how many were answered before the kill (minus the grace). */
  firstRequests: number;
  answeredBeforeKill: number;
  /** Requests of the resumed run. */
  resumedRequests: number;
  /** Resumed requests that repeat one answered before the kill (beyond the grace window). */
  repeated: number;
  /** The same without the grace window (any answer sent before the kill). */
  repeatedStrict: number;
  /** For each repeat counted only by `repeatedStrict`: how long before the kill its answer was sent (ms). */
  inFlightGapsMs: number[];
  /** Exit code of the resumed run. */
  resumedExit: number | null;
  /** Stderr of the resumed run (for failures). */
  resumedStderr: string;
}

/**
 * A responder whose first reply is broken JSON for about half of the items (chosen by a hash of
 * the item's prompt, so a resumed run meets the same failures), and answers the re-ask properly:
 * every run has conversations that span several requests.
 */
export function reaskingResponder(responder: Responder, latency: (req: FakeRequest) => number): (req: FakeRequest) => FakeReply {
  return (req) => {
    const delayMs = latency(req);
    const flaky = createHash('sha256').update(firstPrompt(req)).digest()[0]! % 2 === 0;
    if (flaky && req.messages.length === 1) return { text: '{"unfinished": ', delayMs };
    return { ...responder.respond(req), delayMs };
  };
}

/** Runs `node <cli> <args>` to its end; `kill` decides when (if ever) to send `signal`. */
function runCli(
  cli: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  kill?: { signal: NodeJS.Signals; when: Promise<void> },
): Promise<{ code: number | null; stderr: string; killedAt: number | undefined }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let killedAt: number | undefined;
    let exited = false;
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => {
      exited = true;
      resolve({ code, stderr, killedAt });
    });
    void kill?.when.then(() => {
      if (exited) return;
      killedAt = Date.now();
      child.kill(kill.signal);
    });
  });
}

/** Options of {@link killResumeTrial}. */
export interface TrialOptions {
  fake: FakeLlmServer;
  /** The CLI entry (`dist/cli.js`, or `out/src/cli/main.js` in unit tests). */
  cli: string;
  /** Arguments after the CLI path (the same for both runs). */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  signal: 'SIGKILL' | 'SIGINT';
  /** Resolves when the first run should be killed (given the run's start time). */
  killWhen: (startedAt: number) => Promise<void>;
  graceMs?: number;
}

/** One trial: run, kill, resume, count repeats. */
export async function killResumeTrial(o: TrialOptions): Promise<TrialResult> {
  const grace = o.graceMs ?? ARRIVAL_GRACE_MS;
  const start = o.fake.requests.length;
  const first = await runCli(o.cli, o.args, o.env, { signal: o.signal, when: o.killWhen(Date.now()) });
  const killedAt = first.killedAt ?? Date.now();
  const firstRun = o.fake.requests.slice(start);
  const boundary = o.fake.requests.length;
  const answered = (slack: number): Set<string> =>
    new Set(firstRun.filter((r) => r.answeredAt !== undefined && r.answeredAt <= killedAt - slack && r.contentHash).map((r) => r.contentHash!));
  const arrived = answered(grace);
  const arrivedStrict = answered(0);
  const sentAt = new Map(firstRun.filter((r) => r.answeredAt !== undefined && r.contentHash).map((r) => [r.contentHash!, r.answeredAt!] as const));
  const second = await runCli(o.cli, o.args, o.env);
  const resumed = o.fake.requests.slice(boundary);
  return {
    signal: o.signal,
    firstRequests: firstRun.length,
    answeredBeforeKill: arrived.size,
    resumedRequests: resumed.length,
    repeated: resumed.filter((r) => arrived.has(r.contentHash ?? '')).length,
    repeatedStrict: resumed.filter((r) => arrivedStrict.has(r.contentHash ?? '')).length,
    inFlightGapsMs: resumed
      .filter((r) => arrivedStrict.has(r.contentHash ?? '') && !arrived.has(r.contentHash ?? ''))
      .map((r) => killedAt - (sentAt.get(r.contentHash ?? '') ?? killedAt)),
    resumedExit: second.code,
    resumedStderr: second.stderr,
  };
}
