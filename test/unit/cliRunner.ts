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
  const io = capturingIo(cwd, env);
  const code = await run(args, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

/** A harness's record files by name, as text: for byte comparisons of two runs. */
export async function recordTexts(dir: string): Promise<Map<string, string>> {
  const names = (await readdir(join(dir, 'records'))).sort();
  return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, 'records', n), 'utf8')] as const)));
}

/** An `Io` that keeps what a command printed, for tests that call `run` themselves. */
export interface CapturingIo extends Io {
  stdout: string[];
  stderr: string[];
}

/** A fresh {@link CapturingIo} in `cwd` with exactly `env` (nothing of the test process's). */
export function capturingIo(cwd: string, env: NodeJS.ProcessEnv = {}): CapturingIo {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (s) => stdout.push(s), err: (s) => stderr.push(s), cwd, env };
}
