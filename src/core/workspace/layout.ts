/**
 * Every folder and file name Agent Seer reads or writes, and how a server's snapshot file and
 * harness folder are named. It imports nothing of ours, so any layer may read it.
 */
import { basename, dirname, join } from 'node:path';

/** Where snapshots are written by default, relative to a workspace folder (`agentSeer.snapshotFolder`). */
export const SNAPSHOT_FOLDER = '.agentseer/specs';
/** Where harnesses are written by default, relative to the workspace folder or the CLI's cwd (`agentSeer.harnessFolder`). */
export const HARNESS_FOLDER = 'evals';
/** The records folder inside a harness folder. */
export const RECORDS_DIR = 'records';
/** The run manifest inside a harness folder. */
export const MANIFEST_FILE = 'manifest.json';
/** A copy of the spec the harness was generated from, so it can be judged wherever it is moved. */
export const HARNESS_SPEC_FILE = 'spec.json';
/** The lock file of a harness folder while a run writes it (see harness/lock.ts). */
export const LOCK_FILE = '.agent-seer.lock';
/** Folder of the LLM cache and ledger inside a harness folder (or `--cache-dir`). */
export const CACHE_DIR = '.cache';
/** The reply cache inside the cache folder. */
export const LLM_CACHE_DIR = 'llm';
/** The batch journal (jobs, their requests and downloaded results) inside the cache folder. */
export const BATCH_DIR = 'batch';
/**
 * Inside the batch folder, one set of files per job, named by the job's display name:
 * `<name>.json` (its journal entry), `<name>.requests.jsonl`, `<name>.results.jsonl`.
 */
export const BATCH_JOBS_DIR = 'jobs';
/** The VS Code settings file of a workspace folder, where the CLI reads `agentSeer.*` folder settings. */
export const WORKSPACE_SETTINGS_FILE = '.vscode/settings.json';

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
const MAX_SLUG = 100;

/**
 * The snapshot file name for a server name: `<slug>.json`. The slug keeps letters, digits, `.`,
 * `_` and `-`, lower-cased (names then mean the same on case-insensitive file systems); every
 * other run of characters (slashes, NUL, `:*?"<>|`, spaces) and every `..` becomes one `-`; leading dots
 * and dashes go (no hidden files, no `..`), Windows device names get a `_` prefix, and an empty
 * result becomes `server`. Names that differ only in those characters share a file.
 */
export function snapshotFileName(serverName: string): string {
  return `${slugOf(serverName)}.json`;
}

/**
 * The harness folder's name (inside the harness folder setting) for a server: the same slug as
 * its snapshot file, so `filesystem` → `.agentseer/specs/filesystem.json` and `evals/filesystem/`.
 * Both front ends name folders only through this.
 */
export function harnessFolderName(serverName: string): string {
  return slugOf(serverName);
}

function slugOf(serverName: string): string {
  let slug = serverName
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}._-]+/gu, '-')
    .replace(/\.{2,}/g, '-') // `..` is harmless without separators, but reads like traversal
    .replace(/-{2,}/g, '-')
    .replace(/^[.\-_]+/, '');
  slug = Array.from(slug)
    .slice(0, MAX_SLUG)
    .join('')
    .replace(/[.-]+$/, '');
  if (slug === '') slug = 'server';
  if (WINDOWS_RESERVED.test(slug.split('.')[0] ?? '')) slug = `_${slug}`;
  return slug;
}

/** The workspace folder a config file belongs to (`X/.vscode/mcp.json` → `X`). */
export function workspaceRootOf(configFile: string): string {
  const dir = dirname(configFile);
  if (basename(dir) === 'mcpServers' && basename(dirname(dir)) === '.continue') return dirname(dirname(dir));
  return basename(dir).startsWith('.') ? dirname(dir) : dir;
}

/** Folder of agent runs inside a harness folder: `runs/<agent>/<run>/<scenario>.json` trajectories. */
export const RUNS_DIR = 'runs';

/** Folder of one agent's runs in a harness (`<harness>/runs/<provider>-<model>`), for `agent-seer run` and the editor's Testing view. */
export function agentRunsDir(harnessDir: string, agent: { id: string; model: string }): string {
  return join(harnessDir, RUNS_DIR, harnessFolderName(`${agent.id}-${agent.model}`));
}
