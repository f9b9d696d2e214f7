/**
 * Starting a stdio MCP server and stopping it for good, with everything it started.
 *
 * Servers are often wrappers (`sh -c`, `bash -c "source venv/bin/activate && python …"`, `npx`):
 * signalling only the direct child leaves the real server running, holding our pipes open. So on
 * POSIX each server runs in its own process group (`detached`: a new session whose group id is
 * the child's pid) and every signal goes to the whole group. Windows has no process groups;
 * there `taskkill /T /F` ends the tree by parent pid (not exercised by the tests, which run on
 * Linux). Groups still running when this process exits are killed from an `exit` hook.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
// The SDK's own stdio transport spawns through cross-spawn too: it resolves `.cmd` shims (npx,
// uvx) on Windows, where plain spawn refuses them; on POSIX it is child_process.spawn.
import { spawn as crossSpawn } from 'cross-spawn';
import { raceTimer, sleep } from './deadline';

/**
 * How a stdio child ended: on its own (`exited`), after its stdin was closed (`stdin`, the
 * polite MCP shutdown), or by signal after a grace period (`SIGTERM`, then `SIGKILL`). When the
 * child left other processes in its group, this is the strongest step the whole tree needed.
 */
export type ChildStop = 'exited' | 'stdin' | 'SIGTERM' | 'SIGKILL';

/** Exit status of a stdio child. */
export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/** What to start. `env` is added to the SDK's safe default environment (PATH, HOME, …). */
export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** A started server process: its pipes, its exit, and its process tree. */
export interface ServerProcess {
  pid: number;
  child: ChildProcess;
  exit(): ExitInfo | undefined;
  /** Resolves true once the direct child has exited, false after `ms`. */
  waitExit(ms: number): Promise<boolean>;
  /** Resolves once the child has exited and all its pipes are closed (all stderr read). */
  closed: Promise<void>;
  endStdin(): void;
}

/** After SIGKILL, how long to wait for the tree to be gone before reporting anyway. */
const KILL_WAIT_MS = 5000;
const POLL_MS = 50;
const isWindows = process.platform === 'win32';

/** Process groups (POSIX) or tree roots (Windows) started here and not yet confirmed gone. */
const liveTrees = new Set<number>();
let exitHookInstalled = false;

/**
 * Spawns a server with piped stdio in its own process group. Resolves once it runs; rejects
 * with the spawn error (ENOENT, EACCES…) when it cannot start.
 */
export async function startServerProcess(cmd: ServerCommand): Promise<ServerProcess> {
  installExitHook();
  const child = crossSpawn(cmd.command, cmd.args, {
    env: { ...getDefaultEnvironment(), ...cmd.env },
    cwd: cmd.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    shell: false,
    windowsHide: isWindows,
    // A new session and process group on POSIX. Not on Windows: there it would open a console.
    detached: !isWindows,
  });
  let exit: ExitInfo | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    }),
  );
  // Registered before 'spawn' can fire, so 'close' cannot be missed.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  // Later errors (a write to a dead child's stdin) are seen through exit and close instead.
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  const pid = child.pid as number;
  liveTrees.add(pid);
  return {
    pid,
    child,
    exit: () => exit,
    waitExit: (ms) =>
      raceTimer(
        exited.then(() => true),
        ms,
        false,
      ),
    closed,
    endStdin: () => {
      try {
        child.stdin?.end();
      } catch {
        // the pipe may already be gone; the signals still apply
      }
    },
  };
}

/**
 * Stops a server and its whole tree: stdin closed first when `polite` (the MCP shutdown), then
 * SIGTERM to the group, then SIGKILL, each after `graceMs`. Also run after a child that exited by
 * itself, since it may have left processes behind in its group.
 */
export async function stopServerProcess(proc: ServerProcess, polite: boolean, graceMs: number): Promise<ChildStop> {
  try {
    let stop: ChildStop = 'exited';
    if (proc.exit() === undefined && polite) {
      proc.endStdin();
      if (await proc.waitExit(graceMs)) stop = 'stdin';
    }
    if (!treeAlive(proc)) return stop;
    signalTree(proc.pid, 'SIGTERM');
    if (await waitTreeGone(proc, graceMs)) return 'SIGTERM';
    signalTree(proc.pid, 'SIGKILL');
    await waitTreeGone(proc, KILL_WAIT_MS);
    return 'SIGKILL';
  } finally {
    if (!treeAlive(proc)) liveTrees.delete(proc.pid);
  }
}

function treeAlive(proc: ServerProcess): boolean {
  if (proc.exit() === undefined) return true;
  // On Windows the tree is not observable without a process list; the child's exit stands for it.
  return !isWindows && groupAlive(proc.pid);
}

async function waitTreeGone(proc: ServerProcess, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (treeAlive(proc)) {
    if (Date.now() >= end) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/** Sends `signal` to the process group `pgid` (POSIX) or ends the tree rooted at it (Windows). */
function signalTree(pgid: number, signal: NodeJS.Signals): void {
  if (isWindows) {
    // taskkill has no polite variant for console programs: both steps force the whole tree.
    spawnSync('taskkill', ['/T', '/F', '/PID', String(pgid)], { stdio: 'ignore', windowsHide: true });
    return;
  }
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is already gone
  }
}

/**
 * Whether any live process remains in group `pgid`. Zombies do not count: where PID 1 does not
 * reap orphans (some containers), a killed grandchild stays a zombie and `kill(-pgid, 0)` still
 * succeeds, so on Linux the group's members are read from /proc.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') return true;
  }
  return false;
}

/** State and process group of a Linux process from /proc/PID/stat; undefined when it is gone. */
export function procStat(pid: number): { state: string; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/**
 * Kills every tree still running when this process exits (normally, by `process.exit`, or from a
 * signal handler that exits), so neither the CLI nor the editor leaves servers behind. Only
 * synchronous work is possible there: SIGKILL at once, no grace.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killAllTreesNow);
}

/** SIGKILLs every server tree started here that has not been confirmed gone. */
export function killAllTreesNow(): void {
  for (const pgid of liveTrees) signalTree(pgid, 'SIGKILL');
  liveTrees.clear();
}
