/** Runs the CLI in-process with captured output, for the CLI tests. */
import type { Io } from '../../src/cli/errors';
import { run } from '../../src/cli/main';
import { repoRoot } from './fixturePaths';

export interface Captured {
  code: number;
  out: string;
  err: string;
}

export async function cli(args: string[], cwd = repoRoot, env: NodeJS.ProcessEnv = { ...process.env }): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (s) => out.push(s), err: (s) => err.push(s), cwd, env };
  const code = await run(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}
