/** Runs the CLI in-process with captured output, or the built CLI as a process, for the CLI tests. */
import { spawn } from 'node:child_process';
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

/**
 * The test process's environment as a command's, outside GitHub Actions: under it the CLI adds
 * annotation lines to its output, which only the tests of annotations ask for.
 */
function testEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.GITHUB_ACTIONS;
  return env;
}

export async function cli(args: string[], cwd = repoRoot, env: NodeJS.ProcessEnv = testEnv()): Promise<Captured> {
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

/** The built CLI (`npm run build` first). */
export const builtCli = join(repoRoot, 'dist', 'cli.js');

/** What a run of the built CLI printed, how it ended, and whether it had to be killed. */
export interface BuiltRun extends Omit<Captured, 'code'> {
  code: number | null;
  killed: boolean;
}

/**
 * `node dist/cli.js …args` as a process in `cwd`, with exactly `env` plus PATH (no key or setting
 * of the test process leaks in), to its end or SIGKILLed after `killAfterMs` (then `killed`).
 */
export function runBuiltCli(args: string[], o: { cwd: string; env?: NodeJS.ProcessEnv; killAfterMs?: number }): Promise<BuiltRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli, ...args], { cwd: o.cwd, env: { PATH: process.env.PATH, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let killed = false;
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, o.killAfterMs ?? 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err, killed });
    });
  });
}
