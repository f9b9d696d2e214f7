/**
 * Which processes belong to a server we started, on Linux (read from /proc).
 *
 * A process group is not enough: a server may start a helper that calls `setsid` (a daemon, a
 * `detached` Node child), which leaves our group and session, and a double fork leaves the
 * helper with PID 1 as its parent. So a server is started in a fresh session (its pid is the
 * session and group id) with a marker in its environment, and a process belongs to its tree when
 * it is (1) in that session or group, (2) carries the marker (environments are inherited, so a
 * double-forked `setsid` daemon still has it), (3) descends by parent pid from one that does, or
 * (4) was found a member by an earlier look (same pid and start time: the caller looks while the
 * server runs, so a child that left the session with an empty environment is remembered after
 * its parent exits).
 * Only processes started no earlier than the server are looked at (nothing older can be its
 * descendant), so the environments of unrelated older processes are never read.
 *
 * What escapes: a process that left the session, cleared or replaced its environment, and whose
 * parent chain to the tree was broken between two looks (a double fork with `env -i` whose middle
 * process lived less than the interval between looks), and
 * processes of another user (their /proc files are not readable). A cgroup would catch these
 * too, but needs a delegated cgroup v2 subtree that a CLI or an editor extension cannot count on.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable that marks every process of one server's tree. */
export const TREE_MARK_VAR = 'AGENT_SEER_SERVER_TREE';

/** How to recognise one server's tree. */
export interface TreeMark {
  /** The server's pid: its session and process group id. */
  root: number;
  /** The value of {@link TREE_MARK_VAR} in its environment. */
  token: string;
  /** The server's start time (clock ticks after boot); 0 when unknown. */
  since: number;
  /** Members found so far, pid → start time (a pid reused by an unrelated process differs in it). */
  seen: Map<number, number>;
}

/** A new marker value, unique to one server start. */
export function newTreeToken(): string {
  return randomBytes(12).toString('hex');
}

/** The fields of /proc/PID/stat this module needs. */
export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** Clock ticks after boot. */
  starttime: number;
}

/** One process's /proc/PID/stat; undefined when it is gone (or not Linux). */
export function procStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: fields start after the last ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, state: f[0] ?? '', ppid: Number(f[1]), pgrp: Number(f[2]), session: Number(f[3]), starttime: Number(f[19]) };
  } catch {
    return undefined;
  }
}

/** Every process's stat, or undefined when /proc cannot be read. */
function allStats(): ProcStat[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const out: ProcStat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat) out.push(stat);
  }
  return out;
}

function carriesMark(pid: number, marker: Buffer): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(marker);
  } catch {
    return false; // gone, or another user's
  }
}

/**
 * The live (not zombie) processes of the tree `mark` describes; undefined when /proc cannot be
 * read (not Linux), so the caller falls back to the process group.
 */
export function treeMembers(mark: TreeMark): number[] | undefined {
  const stats = allStats();
  if (!stats) return undefined;
  const marker = Buffer.from(`${TREE_MARK_VAR}=${mark.token}\0`);
  const candidates = stats.filter((s) => s.pid !== process.pid && s.starttime >= mark.since);
  const members = new Set<number>();
  for (const s of candidates) {
    if (s.session === mark.root || s.pgrp === mark.root || mark.seen.get(s.pid) === s.starttime || carriesMark(s.pid, marker)) members.add(s.pid);
  }
  // Descendants by parent pid: a child that left the session and cleared its environment.
  for (let grew = true; grew;) {
    grew = false;
    for (const s of candidates) {
      if (!members.has(s.pid) && members.has(s.ppid)) {
        members.add(s.pid);
        grew = true;
      }
    }
  }
  const starts = new Map(candidates.map((s) => [s.pid, s.starttime]));
  for (const pid of members) mark.seen.set(pid, starts.get(pid) ?? 0);
  const dead = new Set(candidates.filter((s) => s.state === 'Z' || s.state === 'X').map((s) => s.pid));
  return [...members].filter((pid) => !dead.has(pid));
}
