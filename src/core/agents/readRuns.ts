/**
 * Reading back every trajectory under a harness's `runs/` folder: `runs/<agent>/<run>/<scenario>.json`,
 * as `agent-seer run` (`<run>` = 1, 2, …) and `agent-seer serve` (`mcp-client/<time>`, one file per
 * session: `<scenario>~2.json` for a scenario's second session) write them.
 * Like `readHarness`, it never throws for bad content: a file that is not a trajectory is one
 * problem and the others are still read. Scores are not read from anywhere: whoever reports
 * re-scores the calls against the harness's records.
 */
import { join } from 'node:path';
import { checkTreeInside, ContainmentError, listInside } from '../containment';
import { describeIssues, readJson, type HarnessProblem } from '../harness/store';
import { byCodeUnit } from '../util/byCodeUnit';
import { RUNS_DIR } from '../workspace/layout';
import { Trajectory } from './trajectory';
import { safeParseKeepingKeys } from '../util/ownKeys';

/** One run of one agent: its folder name and the trajectories found in it. */
export interface AgentRun {
  run: string;
  trajectories: Trajectory[];
}

/** Every run of one agent folder. */
export interface AgentRuns {
  /** The agent's folder name under `runs/`. */
  agent: string;
  runs: AgentRun[];
}

/** What {@link readRuns} found. */
export interface RunsRead {
  /** Agent folders with at least one run folder, by name. */
  agents: AgentRuns[];
  problems: HarnessProblem[];
}

/**
 * Sub-folders of a folder below the harness folder `root`, sorted; a folder that does not exist
 * has none, any other failure is a problem, and a link is refused (`ContainmentError`).
 */
async function folders(root: string, dir: string, problems: HarnessProblem[]): Promise<string[]> {
  try {
    const entries = (await listInside(root, dir, { refuseLinks: true })) ?? [];
    return entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort(byCodeUnit);
  } catch (e) {
    if (e instanceof ContainmentError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') problems.push({ file: dir, message: `cannot list runs: ${code ?? (e as Error).message}` });
    return [];
  }
}

/** Run folder names in run order: numbers numerically (2 before 10), then the rest (serve's timestamps) by name. */
function byRunOrder(a: string, b: string): number {
  const na = /^\d+$/.test(a) ? Number(a) : NaN;
  const nb = /^\d+$/.test(b) ? Number(b) : NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  if (!Number.isNaN(na) || !Number.isNaN(nb)) return Number.isNaN(na) ? 1 : -1;
  return byCodeUnit(a, b);
}

/**
 * Reads every trajectory of every run of every agent of the harness in `harnessDir`. Throws
 * `ContainmentError` when `runs/` is a link or holds one: nothing under it is read then.
 */
export async function readRuns(harnessDir: string): Promise<RunsRead> {
  const problems: HarnessProblem[] = [];
  const root = join(harnessDir, RUNS_DIR);
  await checkTreeInside(harnessDir, root);
  const agents: AgentRuns[] = [];
  for (const agent of await folders(harnessDir, root, problems)) {
    const runs: AgentRun[] = [];
    for (const run of (await folders(harnessDir, join(root, agent), problems)).sort(byRunOrder)) {
      const dir = join(root, agent, run);
      let names: string[];
      try {
        names = ((await listInside(harnessDir, dir, { refuseLinks: true })) ?? [])
          .map((e) => e.name)
          .filter((n) => n.endsWith('.json'))
          .sort(byCodeUnit);
      } catch (e) {
        if (e instanceof ContainmentError) throw e;
        problems.push({ file: dir, message: `cannot list trajectories: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
        continue;
      }
      const trajectories: Trajectory[] = [];
      for (const name of names) {
        const file = join(dir, name);
        const read = await readJson(harnessDir, file, problems);
        if (!read.ok) continue;
        const parsed = safeParseKeepingKeys(Trajectory, read.value);
        if (parsed.success) trajectories.push(parsed.data);
        else problems.push({ file, message: `invalid trajectory: ${describeIssues(parsed.error)}` });
      }
      runs.push({ run, trajectories });
    }
    if (runs.length) agents.push({ agent, runs });
  }
  return { agents, problems };
}

/** The leaderboard row of serve runs whose trajectory records its MCP client: `mcp:<clientInfo name>`. */
export const clientAgent = (name: string): string => `mcp:${name}`;

/**
 * The runs as agents and runs to score. A trajectory that records its MCP client (`serve`) goes
 * to the agent {@link clientAgent}, not to its folder's (`mcp-client`), so each client program
 * gets its own row; one without keeps its folder. And a run folder holding several trajectories
 * of one scenario (several `serve` sessions on it, as `<id>.json`, `<id>~2.json`, …) is that many
 * runs: the i-th trajectory of each scenario lands in run `<folder>` (i = 1) or `<folder>#<i>`.
 */
export function runsByClient(agents: readonly AgentRuns[]): AgentRuns[] {
  const byAgent = new Map<string, Map<string, Trajectory[]>>();
  const runOf = (agent: string, run: string): Trajectory[] => {
    const runs = byAgent.get(agent) ?? new Map<string, Trajectory[]>();
    byAgent.set(agent, runs);
    const list = runs.get(run) ?? [];
    runs.set(run, list);
    return list;
  };
  for (const a of agents) {
    for (const r of a.runs) {
      if (!r.trajectories.length) runOf(a.agent, r.run);
      const nth = new Map<string, number>();
      for (const t of r.trajectories) {
        const agent = t.client ? clientAgent(t.client.name) : a.agent;
        const key = `${agent}\u241f${t.scenarioId}`;
        const i = (nth.get(key) ?? 0) + 1;
        nth.set(key, i);
        runOf(agent, i === 1 ? r.run : `${r.run}#${i}`).push(t);
      }
    }
  }
  return [...byAgent].map(([agent, runs]) => ({ agent, runs: [...runs].map(([run, trajectories]) => ({ run, trajectories })) }));
}
