/**
 * A hostile stdio MCP server for the tests, written as a plain Node script (no SDK) so it does
 * exactly what a test asks: `node server.js <mode> <dir> [args…]`.
 *
 * - `tree-answer` / `tree-hang`: first starts three helpers that escape a process group, each
 *   writing its pid to `<dir>/<name>.pid` and then running for minutes: `setsid` (the util-linux
 *   command), a double fork whose middle process exits at once leaving a `detached` (setsid)
 *   grandchild to PID 1, and a `detached` child with an empty environment. Then answers
 *   `initialize` and `tools/list` (one tool), or never answers.
 * - `leak`: prints its argv to stdout (not JSON-RPC) and stderr, then `PAD` bytes of `x` to
 *   stderr (no newline, env `PAD`), then exits 1.
 * - `leak-env`: prints `token <env SERVICE_TOKEN>` to stderr, then `PAD` bytes of `x`, exits 1.
 * - `leak-answer`: prints its argv to stdout and stderr, then answers like `tree-answer`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SCRIPT = String.raw`
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const [mode, dir] = process.argv.slice(2);
const keep = (name) => "require('fs').writeFileSync(" + JSON.stringify(join(dir, name + '.pid')) + ", String(process.pid)); setInterval(() => {}, 1e6)";

function helpers() {
  spawn('setsid', [process.execPath, '-e', keep('setsid')], { stdio: 'ignore' });
  // The middle process exits as soon as it has started the detached grandchild.
  const inner = "require('child_process').spawn(process.execPath, ['-e', " + JSON.stringify(keep('doublefork')) + "], { detached: true, stdio: 'ignore' }).unref()";
  spawn(process.execPath, ['-e', inner], { stdio: 'ignore' });
  spawn(process.execPath, ['-e', keep('noenv')], { detached: true, stdio: 'ignore', env: {} });
}

function serve() {
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      if (msg.id === undefined) continue;
      const result =
        msg.method === 'initialize'
          ? { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } }
          : msg.method === 'tools/list'
            ? { tools: [{ name: 'echo', description: 'Echoes.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] }
            : undefined;
      const reply = result ? { jsonrpc: '2.0', id: msg.id, result } : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no such method' } };
      process.stdout.write(JSON.stringify(reply) + '\n');
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

const argvLine = 'started with argv ' + process.argv.join(' ') + '\n';
if (mode === 'tree-answer' || mode === 'tree-hang') {
  helpers();
  // Serves (or hangs) only once every helper runs, so the test knows what to look for.
  const fs = require('node:fs');
  const started = Date.now();
  const wait = setInterval(() => {
    const ready = ['setsid', 'doublefork', 'noenv'].every((name) => fs.existsSync(join(dir, name + '.pid')));
    if (!ready && Date.now() - started < 10000) return;
    clearInterval(wait);
    if (mode === 'tree-answer') serve();
    else setInterval(() => {}, 1e6);
  }, 20);
} else if (mode === 'leak') {
  process.stdout.write(argvLine);
  process.stderr.write(argvLine);
  process.stderr.write('x'.repeat(Number(process.env.PAD || 0)), () => process.exit(1));
} else if (mode === 'leak-env') {
  process.stderr.write('token ' + process.env.SERVICE_TOKEN + '\n');
  process.stderr.write('x'.repeat(Number(process.env.PAD || 0)), () => process.exit(1));
} else if (mode === 'leak-answer') {
  process.stdout.write(argvLine);
  process.stderr.write(argvLine);
  serve();
}
`;

/** Writes the server script into `dir` and returns its path. */
export function writeHostileServer(dir: string): string {
  const file = join(dir, 'hostile-server.js');
  writeFileSync(file, SCRIPT);
  return file;
}

/** The helpers `tree-*` modes start, by pid-file name. */
export const TREE_HELPERS = ['setsid', 'doublefork', 'noenv'] as const;

/** The pid a helper wrote to `<dir>/<name>.pid`, once it is there (waits up to `ms`). */
export async function helperPid(dir: string, name: string, ms = 10_000): Promise<number> {
  const file = join(dir, `${name}.pid`);
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
    if (/^\d+$/.test(text)) return Number(text);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pid in ${file}`);
}

/**
 * Gone for good: no such process, or a zombie (where PID 1 does not reap orphans, as in some
 * containers, a killed process stays a zombie that `kill(pid, 0)` still finds).
 */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** SIGKILLs what a failed test left running (each pid the test saw). */
export function killLeftovers(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
