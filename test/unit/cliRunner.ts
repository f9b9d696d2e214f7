/** Runs the CLI in-process with captured output, for the CLI tests. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/** A harness's record files by name, as text: for byte comparisons of two runs. */
export async function recordTexts(dir: string): Promise<Map<string, string>> {
  const names = (await readdir(join(dir, 'records'))).sort();
  return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, 'records', n), 'utf8')] as const)));
}
