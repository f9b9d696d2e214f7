/**
 * Starting a stdio MCP server and stopping it for good, with everything it started.
 *
 * Servers are often wrappers (`sh -c`, `bash -c "source venv/bin/activate && python …"`, `npx`):
 * signalling only the direct child leaves the real server running, holding our pipes open. So on
 * POSIX each server runs in a fresh session (`detached`: `setsid`, so its pid is the session and
 * process group id) and every signal goes to the whole group. On Linux it goes further: every
 * process of the server's tree as `processTree.ts` finds it (its session, its group, the marker
 * in its environment, descendants by parent pid) is signalled, so a helper that called `setsid`
 * or double-forked into a daemon is stopped too. Windows has no process groups; there
 * `taskkill /T /F` ends the tree by parent pid (not exercised by the tests, which run on Linux).
 * Trees still running when this process exits are killed from an `exit` hook.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
// The SDK's own stdio transport spawns through cross-spawn too: it resolves `.cmd` shims (npx,
// uvx) on Windows, where plain spawn refuses them; on POSIX it is child_process.spawn.
import { spawn as crossSpawn } from 'cross-spawn';
import { raceTimer, sleep } from './deadline';
import { newTreeToken, procStat, TREE_MARK_VAR, treeMembers, type TreeMark } from './processTree';

/**
 * How a stdio child ended: on its own (`exited`), after its stdin was closed (`stdin`, the
 * polite MCP shutdown), or by signal after a grace period (`SIGTERM`, then `SIGKILL`). When the
 * child left other processes in its tree, this is the strongest step the whole tree needed.
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
  /** How the processes of its tree are recognised (see `processTree.ts`). */
  mark: TreeMark;
  /** Ends the periodic look at the tree (done by {@link stopServerProcess}). */
  stopWatching(): void;
}

/** After SIGKILL, how long to wait for the tree to be gone before reporting anyway. */
const KILL_WAIT_MS = 5000;
/** While a server runs, how often its tree is looked at, so members are remembered (Linux). */
const TREE_WATCH_MS = 1000;
const POLL_MS = 50;
const isWindows = process.platform === 'win32';
const isLinux = process.platform === 'linux';

/** Trees started here and not yet confirmed gone, by root pid. */
const liveTrees = new Map<number, TreeMark>();
let exitHookInstalled = false;

/**
 * Spawns a server with piped stdio in a fresh session (its own process group), its environment
 * marked for `processTree.ts`. Resolves once it runs; rejects
 * with the spawn error (ENOENT, EACCES…) when it cannot start.
 */
export async function startServerProcess(cmd: ServerCommand): Promise<ServerProcess> {
  installExitHook();
  const token = newTreeToken();
  const child = crossSpawn(cmd.command, cmd.args, {
    // The marker goes last so that a config cannot set it (and hide its tree).
    env: { ...getDefaultEnvironment(), ...cmd.env, [TREE_MARK_VAR]: token },
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
  // Read at once: the start time bounds which processes can be the server's descendants.
  const mark: TreeMark = { root: pid, token, since: procStat(pid)?.starttime ?? 0, seen: new Map() };
  liveTrees.set(pid, mark);
  // Remembering the tree as it grows catches a child that leaves the session with an emptied
  // environment before its parent exits (see processTree.ts). Stopped by stopServerProcess.
  const watch = isLinux ? setInterval(() => treeMembers(mark), TREE_WATCH_MS) : undefined;
  watch?.unref();
  return {
    pid,
    child,
    mark,
    stopWatching: () => clearInterval(watch),
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
 * SIGTERM to every process of the tree, then SIGKILL, each after `graceMs`. Also run after a
 * child that exited by itself, since it may have left processes behind (a daemon it started).
 */
export async function stopServerProcess(proc: ServerProcess, polite: boolean, graceMs: number): Promise<ChildStop> {
  try {
    let stop: ChildStop = 'exited';
    // One last look while the server still runs: its children are remembered before it exits.
    if (isLinux) treeMembers(proc.mark);
    if (proc.exit() === undefined && polite) {
      proc.endStdin();
      if (await proc.waitExit(graceMs)) stop = 'stdin';
    }
    if (!treeAlive(proc)) return stop;
    // Processes that appear while waiting (a server forking as it shuts down) get the signal too.
    const termed = new Set<number>();
    const term = () => signalTree(proc.mark, 'SIGTERM', termed);
    term();
    if (await waitTreeGone(proc, graceMs, term)) return 'SIGTERM';
    const kill = () => signalTree(proc.mark, 'SIGKILL');
    kill();
    await waitTreeGone(proc, KILL_WAIT_MS, kill);
    return 'SIGKILL';
  } finally {
    proc.stopWatching();
    if (!treeAlive(proc)) liveTrees.delete(proc.pid);
  }
}

function treeAlive(proc: ServerProcess): boolean {
  if (proc.exit() === undefined) return true;
  // On Windows the tree is not observable without a process list; the child's exit stands for it.
  if (isWindows) return false;
  const members = treeMembers(proc.mark);
  return members === undefined ? groupAlive(proc.pid) : members.length > 0;
}

async function waitTreeGone(proc: ServerProcess, ms: number, again: () => void): Promise<boolean> {
  const end = Date.now() + ms;
  while (treeAlive(proc)) {
    if (Date.now() >= end) return false;
    await sleep(POLL_MS);
    again();
  }
  return true;
}

/**
 * Sends `signal` to the tree of `mark`: its process group and, on Linux, every member found in
 * /proc (skipping those in `skip`, and adding the ones signalled to it). On Windows, ends the
 * tree rooted at it.
 */
function signalTree(mark: TreeMark, signal: NodeJS.Signals, skip?: Set<number>): void {
  if (isWindows) {
    // taskkill has no polite variant for console programs: both steps force the whole tree.
    spawnSync('taskkill', ['/T', '/F', '/PID', String(mark.root)], { stdio: 'ignore', windowsHide: true });
    return;
  }
  const send = (target: number) => {
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  };
  if (!skip?.has(-mark.root)) send(-mark.root);
  skip?.add(-mark.root);
  for (const pid of treeMembers(mark) ?? []) {
    if (skip?.has(pid)) continue;
    skip?.add(pid);
    send(pid);
  }
}

/**
 * Whether any process remains in group `pgid`, where /proc cannot say more (not Linux).
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
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
  for (const mark of liveTrees.values()) signalTree(mark, 'SIGKILL');
  liveTrees.clear();
}
