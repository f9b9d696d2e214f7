// cross-spawn ships no types and @types/cross-spawn is not installed: the one function used here.
declare module 'cross-spawn' {
  import type { ChildProcess, SpawnOptions } from 'node:child_process';
  /** child_process.spawn with Windows `.cmd`/shebang resolution. */
  export function spawn(command: string, args: readonly string[], options: SpawnOptions): ChildProcess;
}
