/**
 * Live listing against real MCP servers: the fixture servers in test/fixtures/servers (stdio,
 * Streamable HTTP, legacy SSE, and misbehaving ones) and the published filesystem server.
 * Every stdio test checks that the child is gone afterwards.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ServerDefinition } from '../../../../src/core/spec/configs/types';
import { describeTarget, listServerTools, LiveListError, type LiveListErrorKind, type LiveListOptions } from '../../../../src/core/spec/live';
import { NAMELESS_INDEX } from '../../../fixtures/servers/brokenToolServer';
import { compiledServersDir, repoRoot } from '../../fixturePaths';
import { helperPid, killLeftovers, processGone, TREE_HELPERS, writeHostileServer } from '../../hostileServer';

const serversDir = compiledServersDir;
const fixtureNames = ['search_issues', 'add', 'create_issue', 'delete_issue', 'echo', 'get_weather', 'ping'];

function definition(name: string, fields: Partial<ServerDefinition>): ServerDefinition {
  return {
    name,
    file: '/workspace/.vscode/mcp.json',
    format: 'vscode-mcp-json',
    transport: 'stdio',
    transportInferred: false,
    args: [],
    env: {},
    headers: {},
    disabled: false,
    variables: [],
    ...fields,
  };
}

/** A stdio definition running one of the compiled fixture servers with this Node. */
function fixture(name: string, script: string, args: string[] = []): ServerDefinition {
  return definition(name, { command: process.execPath, args: [join(serversDir, script), ...args] });
}

function urlServer(name: string, url: string, transport: 'http' | 'sse' = 'http', headers: Record<string, string> = {}): ServerDefinition {
  return definition(name, { transport, url, headers });
}

function assertDead(pid: number | undefined): void {
  assert.ok(pid !== undefined && pid > 0, 'a pid was reported');
  assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `process ${pid} is still alive`);
}

/** Runs a listing that must fail; returns the error, its elapsed time and the spawned pid. */
async function failing(
  def: ServerDefinition,
  kind: LiveListErrorKind,
  options: LiveListOptions = {},
): Promise<{ error: LiveListError; ms: number; pid: number | undefined }> {
  let pid: number | undefined;
  const started = Date.now();
  try {
    await listServerTools(def, { ...options, onSpawn: (p) => ((pid = p), options.onSpawn?.(p)) });
  } catch (error) {
    assert.ok(error instanceof LiveListError, `expected a LiveListError, got ${String(error)}`);
    assert.equal(error.kind, kind, `kind of: ${error.message}`);
    assert.ok(!error.message.includes('\n'), `one line: ${error.message}`);
    return { error, ms: Date.now() - started, pid };
  }
  assert.fail('the listing should have failed');
}

/** Runs the built CLI (dist/cli.js) as a real process, killed after `ms`; `during` may act on it. */
async function runCli(args: string[], ms: number, during?: (child: ChildProcess) => Promise<void>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  try {
    const exited = once(child, 'close');
    await during?.(child);
    const [code] = (await exited) as [number | null];
    return { code, out, err };
  } finally {
    clearTimeout(timer);
  }
}

/** Starts the fixture server over HTTP on 127.0.0.1 (port 0) and returns its URL. */
async function startHttpFixture(args: string[]): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(serversDir, 'fixtureServer.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
  };
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`fixture did not start: ${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fixture exited with ${code}: ${output}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, child, stop };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe('listServerTools over stdio', () => {
  it('lists all tools of the fixture server across 3 pages and leaves no process', async () => {
    let pid: number | undefined;
    const listing = await listServerTools(fixture('fixture', 'fixtureServer.js'), { onSpawn: (p) => (pid = p) });
    assert.equal(listing.pages, 3);
    assert.equal(listing.transport, 'stdio');
    assert.equal(listing.serverName, 'fixture');
    assert.deepEqual(
      listing.spec.tools.map((t) => t.name),
      fixtureNames,
      'server order kept in the spec',
    );
    assert.deepEqual(listing.spec.invalidTools, []);
    assert.deepEqual(listing.serverInfo, { name: 'agent-seer-fixture', version: '1.2.3', title: 'Agent Seer Fixture' });
    assert.equal(listing.spec.name, 'agent-seer-fixture');
    assert.equal(listing.spec.source, '/workspace/.vscode/mcp.json#fixture');
    assert.ok(!Number.isNaN(Date.parse(listing.spec.capturedAt ?? '')), 'capturedAt is an ISO time');
    assert.deepEqual(listing.capabilities, { tools: { listChanged: false } });
    const add = listing.spec.tools.find((t) => t.name === 'add');
    assert.deepEqual(add?.outputSchema, { type: 'object', properties: { sum: { type: 'number', description: 'a + b' } }, required: ['sum'] });
    assert.deepEqual(add?.annotations, { readOnlyHint: true, idempotentHint: true });
    assert.equal(add?.title, 'Add numbers');
    assert.equal(listing.stderrTail, undefined, 'the fixture writes nothing to stderr');
    assert.equal(listing.pid, pid);
    assert.equal(listing.stopped, 'stdin', 'a well-behaved server exits when its stdin closes');
    assertDead(pid);
  });

  it('ignores unusable option values instead of timing out at once', async () => {
    const listing = await listServerTools(fixture('lenient', 'fixtureServer.js'), { connectTimeoutMs: Number.NaN, listTimeoutMs: -1, maxPages: 0 });
    assert.equal(listing.pages, 3);
  });

  it('lists the published filesystem server (real tool names, no npx, no network)', async () => {
    const pkgDir = join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-filesystem');
    const pkg = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    const bin = pkg.bin['mcp-server-filesystem'];
    assert.ok(bin, 'the package names its bin');
    const root = await mkdtemp(join(tmpdir(), 'agent-seer-fs-'));
    try {
      await writeFile(join(root, 'hello.txt'), 'hi');
      let pid: number | undefined;
      const listing = await listServerTools(definition('filesystem', { command: process.execPath, args: [join(pkgDir, bin), root] }), {
        onSpawn: (p) => (pid = p),
      });
      const names = listing.spec.tools.map((t) => t.name);
      for (const expected of ['read_text_file', 'list_directory', 'write_file', 'search_files']) {
        assert.ok(names.includes(expected), `${expected} in ${names.join(', ')}`);
      }
      assert.deepEqual(listing.spec.invalidTools, []);
      assert.ok(listing.pages >= 1);
      assert.match(listing.serverInfo.name, /filesystem/i);
      assert.match(listing.stderrTail ?? '', /running on stdio/i, 'its startup banner on stderr is kept');
      assertDead(pid);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('reports a broken tool while the others load', async () => {
    const listing = await listServerTools(fixture('broken', 'brokenToolServer.js'));
    assert.equal(listing.pages, 3);
    // The nameless entry is left out; the {$schema}-only inputSchema is odd but still a tool here.
    assert.deepEqual(
      listing.spec.tools.map((t) => t.name),
      ['search_issues', 'add', 'gitlab_style', 'create_issue', 'delete_issue', 'echo', 'get_weather', 'ping'],
    );
    assert.equal(listing.spec.invalidTools.length, 1);
    assert.equal(listing.spec.invalidTools[0]?.index, NAMELESS_INDEX, 'index counts across pages');
    assert.match(listing.spec.invalidTools[0]?.message ?? '', /^name: /);
  });

  it('times out a server that never answers initialize, and kills it', async () => {
    // 2.5 s leaves a loaded machine time to start the child and relay its stderr banner.
    const { error, ms, pid } = await failing(fixture('hanging', 'hangingServer.js'), 'timeout', { connectTimeoutMs: 2500, killGraceMs: 500 });
    assert.match(error.message, /^server "hanging" did not answer initialize within 2\.5s: hanging server started, waiting forever$/);
    assert.ok(ms >= 2400 && ms < 10_000, `took ${ms} ms`);
    assert.equal(error.pid, pid);
    assert.equal(error.details.stopped, 'SIGTERM', 'a timed-out server gets no polite stdin grace');
    assertDead(pid);
  });

  it('escalates to SIGKILL when the server ignores stdin closing and SIGTERM', async () => {
    const { error, ms, pid } = await failing(fixture('stubborn', 'hangingServer.js', ['--ignore-sigterm']), 'timeout', {
      connectTimeoutMs: 1000,
      killGraceMs: 300,
    });
    assertDead(pid);
    assert.equal(error.details.stopped, 'SIGKILL');
    assert.ok(ms >= 1200, `waited the grace period after SIGTERM (${ms} ms)`);
    // Our escalation ends at ~1.3 s; the SDK's own close() would only SIGKILL after ~5 s.
    assert.ok(ms < 4000, `took ${ms} ms`);
  });

  it('reports the exit code and stderr of a server that exits at once', async () => {
    const { error, pid } = await failing(fixture('exiting', 'exitingServer.js'), 'exited');
    assert.equal(error.message, 'server "exiting" exited with code 1 before answering: fatal: GITHUB_TOKEN is not set');
    assert.equal(error.details.exitCode, 1);
    assert.equal(error.stderrTail, 'fatal: GITHUB_TOKEN is not set');
    assert.equal(error.details.stopped, 'exited');
    assertDead(pid);
  });

  it('keeps only the last 4 KB of stderr', async () => {
    const { error } = await failing(fixture('noisy', 'exitingServer.js', ['--flood']), 'exited');
    const tail = error.stderrTail ?? '';
    assert.ok(Buffer.byteLength(tail) <= 4096, `tail is ${Buffer.byteLength(tail)} bytes`);
    assert.ok(Buffer.byteLength(tail) > 3000, 'but most of it is kept');
    assert.match(tail, /fatal: GITHUB_TOKEN is not set$/);
    assert.ok(!tail.includes('noise line 0 '), 'the head of the flood is dropped');
    assert.match(error.message, /fatal: GITHUB_TOKEN is not set$/);
  });

  it('passes env and cwd to the child', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'agent-seer-cwd-'));
    try {
      // The value itself would be masked in the message (see the secrets test): report whether it arrived.
      const script =
        'process.stderr.write((process.env.AGENT_SEER_PROBE === "probe-value" ? "env ok" : "env missing") + " in " + process.cwd()); process.exit(2)';
      const def = definition('probe', { command: process.execPath, args: ['-e', script], env: { AGENT_SEER_PROBE: 'probe-value' }, cwd });
      const { error } = await failing(def, 'exited');
      assert.match(error.message, /^server "probe" exited with code 2 before answering: env ok in /);
      assert.ok(error.message.endsWith(await realpath(cwd)), error.message); // getcwd() reports the real path
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('cancels mid-connect through the AbortSignal and kills the child', async () => {
    const controller = new AbortController();
    const { error, ms, pid } = await failing(fixture('cancelled', 'hangingServer.js'), 'aborted', {
      signal: controller.signal,
      connectTimeoutMs: 60_000,
      onSpawn: () => setTimeout(() => controller.abort(), 300),
    });
    assert.equal(error.message, 'listing the tools of server "cancelled" was cancelled');
    assert.ok(ms < 10_000, `cancelled promptly (${ms} ms), not after the 60 s timeout`);
    assertDead(pid);
  });

  it('does not start anything when already cancelled', async () => {
    let spawned = false;
    const { error } = await failing(fixture('never', 'fixtureServer.js'), 'aborted', { signal: AbortSignal.abort(), onSpawn: () => (spawned = true) });
    assert.equal(spawned, false);
    assert.equal(error.pid, undefined);
  });

  it('times out a tools/list that never comes back', async () => {
    const { error, pid } = await failing(fixture('slow', 'fixtureServer.js', ['--hang-on-list']), 'timeout', { listTimeoutMs: 1000, killGraceMs: 500 });
    assert.equal(error.message, 'server "slow" did not answer tools/list within 1s');
    assertDead(pid);
  });

  it('reports a server that dies while listing', async () => {
    const { error, pid } = await failing(fixture('crashy', 'fixtureServer.js', ['--crash-on-list']), 'exited');
    assert.equal(error.message, 'server "crashy" exited with code 3 while listing tools (page 1): crashing on purpose while listing');
    assertDead(pid);
  });

  it('stops on a repeated cursor', async () => {
    const { error, pid } = await failing(fixture('loop', 'fixtureServer.js', ['--loop-cursor']), 'protocol');
    assert.equal(error.message, 'server "loop" repeated the tools/list cursor "again" after page 2; stopped');
    assertDead(pid);
  });

  it('stops after maxPages of ever-new cursors', async () => {
    const { error, pid } = await failing(fixture('endless', 'fixtureServer.js', ['--endless']), 'protocol', { maxPages: 5 });
    assert.equal(error.message, 'server "endless" sent more than 5 pages of tools/list; stopped');
    assertDead(pid);
  });

  it('reports a command that cannot be started', async () => {
    const { error, pid } = await failing(definition('missing', { command: 'agent-seer-no-such-command' }), 'spawn');
    assert.match(error.message, /^could not start server "missing" \(agent-seer-no-such-command\): .*ENOENT/);
    assert.equal(pid, undefined);
  });

  it('rejects definitions that cannot run', async () => {
    const cases: [ServerDefinition, RegExp][] = [
      [definition('nocmd', {}), /^server "nocmd" has no command to run$/],
      [definition('nocwd', { command: process.execPath, cwd: join(tmpdir(), 'agent-seer-no-such-dir-4711') }), /working directory .* does not exist$/],
      [urlServer('nourl', 'not a url'), /^server "nourl" has no valid URL/],
      [urlServer('ftp', 'ftp://127.0.0.1/x'), /unsupported URL scheme ftp:/],
    ];
    for (const [def, message] of cases) {
      const { error } = await failing(def, 'config');
      assert.match(error.message, message);
    }
  });
});

/** Waits until `file` holds a pid (written by a grandchild) and returns it. */
async function pidFrom(file: string, ms = 10_000): Promise<number> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
    if (/^\d+$/.test(text)) return Number(text);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pid in ${file}`);
}

/** The pids of every descendant of `pid` right now (Linux, from /proc). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent && !found.includes(child)) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

describe('listServerTools stops the whole process tree', { skip: process.platform === 'win32' ? 'POSIX process groups' : false }, () => {
  it('stops a wrapper (sh -c) and the server it started when the timeout fires', async () => {
    let seen: number[] = [];
    const def = definition('wrapped', { command: 'sh', args: ['-c', 'sleep 40; true'] });
    const { error, ms, pid } = await failing(def, 'timeout', {
      connectTimeoutMs: 3000,
      onSpawn: (p) => void setTimeout(() => (seen = descendants(p)), 1000),
    });
    assert.ok(ms < 8000, `settled ${ms} ms after start, not when sleep 40 ends`);
    assert.equal(error.details.stopped, 'SIGTERM');
    assert.equal(seen.length, 1, `the wrapper had started sleep: ${seen.join(', ')}`);
    assertDead(pid);
    for (const p of seen) assert.ok(processGone(p), `grandchild ${p} is still alive`);
  });

  it('SIGKILLs a grandchild that ignores SIGTERM after the grace period', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-tree-'));
    try {
      const pidFile = join(dir, 'grandchild.pid');
      // The subshell ignores TERM and execs sleep, which inherits the ignored signal.
      const script = `(trap "" TERM; exec sleep 60) & echo $! > ${JSON.stringify(pidFile)}; wait`;
      const { error, ms } = await failing(definition('stubborn-tree', { command: 'sh', args: ['-c', script] }), 'timeout', {
        connectTimeoutMs: 1500,
        killGraceMs: 500,
      });
      const grandchild = await pidFrom(pidFile);
      assert.equal(error.details.stopped, 'SIGKILL', 'SIGTERM was not enough for the tree');
      assert.ok(ms < 8000, `took ${ms} ms`);
      assert.ok(processGone(grandchild), `grandchild ${grandchild} survived`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('cancelling through the AbortSignal stops the grandchild too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-tree-'));
    try {
      const pidFile = join(dir, 'grandchild.pid');
      const controller = new AbortController();
      const script = `sleep 60 & echo $! > ${JSON.stringify(pidFile)}; wait`;
      const pending = failing(definition('cancelled-tree', { command: 'sh', args: ['-c', script] }), 'aborted', {
        signal: controller.signal,
        connectTimeoutMs: 60_000,
      });
      const grandchild = await pidFrom(pidFile);
      controller.abort();
      const { ms, pid } = await pending;
      assert.ok(ms < 10_000, `cancelled promptly (${ms} ms)`);
      assertDead(pid);
      assert.ok(processGone(grandchild), `grandchild ${grandchild} survived the cancel`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stops what a server left running after a successful listing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-tree-'));
    try {
      const pidFile = join(dir, 'helper.pid');
      // A wrapper that starts a helper in the background, then execs the real server.
      const server = join(serversDir, 'fixtureServer.js');
      const script = `sleep 60 & echo $! > ${JSON.stringify(pidFile)}; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(server)}`;
      const listing = await listServerTools(definition('with-helper', { command: 'sh', args: ['-c', script] }), { killGraceMs: 500 });
      assert.equal(listing.spec.tools.length, fixtureNames.length);
      const helper = await pidFrom(pidFile);
      assert.ok(processGone(helper), `helper ${helper} outlived the listing`);
      assertDead(listing.pid);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the CLI snapshot of a wrapped server exits within seconds of its timeout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-cli-tree-'));
    try {
      writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { wrapped: { command: 'sh', args: ['-c', 'sleep 40; true'] } } }));
      const started = Date.now();
      const r = await runCli(['snapshot', join(dir, '.mcp.json'), '--out', join(dir, 'out'), '--timeout', '3'], 20_000);
      const ms = Date.now() - started;
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /agent-seer: server "wrapped" did not answer initialize within 3s$/m);
      assert.ok(!/\n\s+at /.test(r.err), 'no stack trace');
      assert.ok(ms < 9000, `exited ${ms} ms after start (timeout 3 s, grace 2 s)`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`the CLI stops the server's tree when it gets ${signal}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'agent-seer-cli-tree-'));
      try {
        const pidFile = join(dir, 'grandchild.pid');
        const script = `sleep 60 & echo $! > ${JSON.stringify(pidFile)}; wait`;
        writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { wrapped: { command: 'sh', args: ['-c', script] } } }));
        const run = runCli(['snapshot', join(dir, '.mcp.json'), '--out', join(dir, 'out'), '--timeout', '60'], 20_000, async (child) => {
          await pidFrom(pidFile);
          child.kill(signal);
        });
        const r = await run;
        const grandchild = await pidFrom(pidFile);
        assert.equal(r.code, 1, r.err);
        assert.match(r.err, /was cancelled$/m);
        assert.ok(processGone(grandchild), `grandchild ${grandchild} outlived the CLI`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

describe(
  'a server whose helpers leave its process group (setsid, a double fork, a detached child)',
  { skip: process.platform !== 'linux' ? 'reads /proc' : false },
  () => {
    /**
     * Runs `snapshot` of the hostile server in `mode` through the built CLI, then checks every
     * helper it started is gone; kills what survived so a failure leaves nothing behind.
     */
    async function snapshotLeavesNothing(mode: 'tree-answer' | 'tree-hang', timeoutSeconds: number, expectCode: number): Promise<void> {
      const dir = await mkdtemp(join(tmpdir(), 'agent-seer-daemons-'));
      const pids: number[] = [];
      try {
        const script = writeHostileServer(dir);
        writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { daemons: { command: process.execPath, args: [script, mode, dir] } } }));
        const r = await runCli(['snapshot', join(dir, '.mcp.json'), '--out', join(dir, 'out'), '--timeout', String(timeoutSeconds)], 60_000);
        assert.equal(r.code, expectCode, r.err);
        for (const name of TREE_HELPERS) pids.push(await helperPid(dir, name));
        const survivors = TREE_HELPERS.filter((_, i) => !processGone(pids[i]!));
        assert.deepEqual(survivors, [], `helpers that outlived the snapshot: ${survivors.join(', ')}`);
      } finally {
        killLeftovers(pids.filter((pid) => !processGone(pid)));
        await rm(dir, { recursive: true, force: true });
      }
    }

    it('a normal snapshot stops them all', async () => {
      await snapshotLeavesNothing('tree-answer', 20, 0);
    });

    it('a snapshot that times out stops them all', async () => {
      await snapshotLeavesNothing('tree-hang', 3, 1);
    });

    it('the listing reports the tree stopped by signal when helpers outlived the server', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'agent-seer-daemons-'));
      const pids: number[] = [];
      try {
        const script = writeHostileServer(dir);
        const listing = await listServerTools(definition('daemons', { command: process.execPath, args: [script, 'tree-answer', dir] }), { killGraceMs: 500 });
        assert.deepEqual(
          listing.spec.tools.map((t) => t.name),
          ['echo'],
        );
        for (const name of TREE_HELPERS) pids.push(await helperPid(dir, name));
        assert.equal(listing.stopped, 'SIGTERM', 'the server left on stdin close; its helpers needed a signal');
        for (const pid of pids) assert.ok(processGone(pid), `helper ${pid} survived`);
      } finally {
        killLeftovers(pids.filter((pid) => !processGone(pid)));
        await rm(dir, { recursive: true, force: true });
      }
    });
  },
);

describe('listServerTools keeps secrets out of messages', () => {
  it('masks env and header values the config passed when a server echoes them to stderr', async () => {
    const script = 'process.stderr.write("fatal: bad credentials " + process.env.MY_SERVICE_TOKEN + " for " + process.env.ORG + "\\n", () => process.exit(1))';
    const def = definition('leaky', { command: process.execPath, args: ['-e', script], env: { MY_SERVICE_TOKEN: 'tok-1234567890', ORG: 'acme-corp' } });
    const { error } = await failing(def, 'exited');
    assert.equal(error.message, 'server "leaky" exited with code 1 before answering: fatal: bad credentials *** for ***');
    assert.equal(error.stderrTail, 'fatal: bad credentials *** for ***');
    assert.ok(!JSON.stringify(error.details).includes('tok-1234567890'));
  });
});

describe('listServerTools over HTTP', () => {
  it('lists over Streamable HTTP on 127.0.0.1, sending the configured headers', async () => {
    const server = await startHttpFixture(['--http', '0', '--require-header', 'x-api-key=s3cret']);
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const listing = await listServerTools(urlServer('remote', server.url, 'http', { 'X-Api-Key': 's3cret' }));
      assert.equal(listing.transport, 'http');
      assert.equal(listing.pages, 3);
      assert.deepEqual(
        listing.spec.tools.map((t) => t.name),
        fixtureNames,
      );
      assert.equal(listing.serverInfo.name, 'agent-seer-fixture');
      assert.equal(listing.pid, undefined);
    } finally {
      await server.stop();
    }
  });

  it('says what the server answered when the headers are wrong (and the SSE fallback too)', async () => {
    const server = await startHttpFixture(['--http', '0', '--require-header', 'x-api-key=s3cret']);
    try {
      // Header values are masked in messages: this one must not be a word the server's answer uses.
      const { error } = await failing(urlServer('remote', server.url, 'http', { 'X-Api-Key': 'not-the-key-42' }), 'connect');
      assert.equal(
        error.message,
        `could not connect to ${server.url}: HTTP 401: missing or wrong credentials; SSE fallback: SSE error: Non-200 status code (401)`,
      );
    } finally {
      await server.stop();
    }
  });

  it('falls back to SSE when Streamable HTTP answers 4xx', async () => {
    const server = await startHttpFixture(['--sse', '0']);
    try {
      assert.match(server.url, /\/sse$/);
      const listing = await listServerTools(urlServer('legacy', server.url, 'http'));
      assert.equal(listing.transport, 'sse', 'fell back');
      assert.equal(listing.pages, 3);
      assert.deepEqual(
        listing.spec.tools.map((t) => t.name),
        fixtureNames,
      );
    } finally {
      await server.stop();
    }
  });

  it('uses SSE directly when the definition says sse', async () => {
    const server = await startHttpFixture(['--sse', '0']);
    try {
      const listing = await listServerTools(urlServer('legacy', server.url, 'sse'));
      assert.equal(listing.transport, 'sse');
      assert.equal(listing.spec.tools.length, fixtureNames.length);
    } finally {
      await server.stop();
    }
  });

  it('gives a clear error for an unreachable URL, without its query string', async () => {
    const port = await freePort();
    const { error, ms } = await failing(urlServer('gone', `http://127.0.0.1:${port}/mcp?token=hunter2`), 'connect');
    assert.match(error.message, new RegExp(`^could not connect to http://127\\.0\\.0\\.1:${port}/mcp: fetch failed \\(.*ECONNREFUSED.*\\)$`));
    assert.ok(!error.message.includes('hunter2'), 'no secrets from the URL in messages');
    assert.ok(ms < 10_000);
  });

  it('times out an HTTP server that accepts but never answers', async () => {
    const silent: Server = createServer(() => undefined);
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as AddressInfo;
    try {
      const { error, ms } = await failing(urlServer('silent', `http://127.0.0.1:${port}/mcp`), 'timeout', { connectTimeoutMs: 1000 });
      assert.equal(error.message, `server "silent" at http://127.0.0.1:${port}/mcp did not answer initialize within 1s`);
      assert.ok(ms >= 900 && ms < 10_000, `took ${ms} ms`);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('describeTarget', () => {
  it('describes commands and URLs without secrets', () => {
    assert.equal(describeTarget(definition('a', { command: 'npx', args: ['-y', 'pkg'] })), 'stdio: npx -y pkg');
    assert.equal(
      describeTarget(urlServer('b', 'https://user:pw@example.com/mcp?key=abc#x', 'http', { Authorization: 'Bearer t' })),
      'http: https://example.com/mcp',
    );
  });
});
