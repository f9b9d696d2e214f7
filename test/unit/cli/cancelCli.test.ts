/**
 * SIGINT and SIGTERM end the built CLI promptly in every stage: offline generation of a large
 * spec (in-memory work that must hand the event loop back), LLM generation and `run` waiting on
 * an endpoint that never answers, and an offline `judge` of a large harness. After the signal the
 * process must exit within a generous bound (a correctness bound, not a benchmark), exit
 * non-zero, keep what it finished and release the folder's lock.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LOCK_FILE } from '../../../src/core/workspace/layout';
import { startFakeGemini } from '../../fakes/fakeGemini';
import { repoRoot } from '../fixturePaths';

const bin = join(repoRoot, 'dist', 'cli.js');
/** How long after the signal the process may take to exit. */
const EXIT_BOUND_MS = 3_000;

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-cancel-'));
  made.push(dir);
  return dir;
}
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Cancelled {
  code: number | null;
  stderr: string;
  /** Whether the process was still running when the signal was sent. */
  runningAtSignal: boolean;
  /** Milliseconds from the signal to the exit. */
  exitAfterMs: number;
}

/**
 * Runs the CLI until `ready(stderr)` holds, waits `delayMs` more, sends `signal`, and measures
 * how long it takes to exit (SIGKILLed after 60 s so a hang fails the test instead of stalling it).
 */
function cancelDuring(args: string[], cwd: string, signal: NodeJS.Signals, ready: (stderr: string) => boolean, delayMs: number): Promise<Cancelled> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, GEMINI_API_KEY: 'test-key' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let signalledAt: number | undefined;
    let runningAtSignal = false;
    let exited = false;
    let armed = false;
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const arm = (): void => {
      if (armed || !ready(stderr)) return;
      armed = true;
      setTimeout(() => {
        runningAtSignal = !exited;
        signalledAt = Date.now();
        child.kill(signal);
        setTimeout(() => child.kill('SIGKILL'), 60_000).unref();
      }, delayMs);
    };
    // Readiness is checked on each line and every 50 ms (it may depend on a fake server's state).
    const poll = setInterval(arm, 50);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
      arm();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      exited = true;
      clearInterval(poll);
      clearTimeout(killer);
      resolve({ code, stderr, runningAtSignal, exitAfterMs: signalledAt === undefined ? Number.NaN : Date.now() - signalledAt });
    });
  });
}

function assertPrompt(r: Cancelled): void {
  assert.ok(r.runningAtSignal, `the run was still going when signalled:\n${r.stderr}`);
  assert.ok(r.exitAfterMs <= EXIT_BOUND_MS, `exited ${r.exitAfterMs} ms after the signal:\n${r.stderr}`);
  assert.notEqual(r.code, 0, r.stderr);
}

/** A spec of `n` tools with a few parameters each. */
function bigSpec(dir: string, n: number): string {
  const tools = Array.from({ length: n }, (_, i) => ({
    name: `get_item_${i}`,
    description: `Gets item ${i} of the store.`,
    inputSchema: {
      type: 'object',
      properties: {
        item_id: { type: 'string', description: 'The item id.' },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'How many.' },
        kind: { type: 'string', enum: ['a', 'b', 'c'], description: 'The kind.' },
      },
      required: ['item_id'],
    },
  }));
  const file = join(dir, 'big.json');
  writeFileSync(file, JSON.stringify({ server: { name: 'big', version: '1' }, tools }));
  return file;
}

const manifestStatus = (dir: string): unknown => (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { status: unknown }).status;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`${signal} during offline generation of a large spec ends it at once, lock released`, { timeout: 180_000 }, async () => {
    const dir = tempDir();
    const spec = bigSpec(dir, 300);
    const r = await cancelDuring(
      ['generate', spec, '--out', 'h', '--simple', '3000', '--complex', '3000'],
      dir,
      signal,
      (e) => e.includes('generating for'),
      500,
    );
    assertPrompt(r);
    assert.equal(existsSync(join(dir, 'h', LOCK_FILE)), false, 'the lock is released');
    assert.equal(manifestStatus(join(dir, 'h')), 'cancelled');
  });
}

test('SIGINT while LLM calls hang ends generate at once, lock released, manifest cancelled', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const spec = bigSpec(dir, 3);
  const fake = await startFakeGemini({ apiKey: 'test-key' });
  try {
    fake.respondWith({ hang: true });
    const r = await cancelDuring(
      ['generate', spec, '--provider', 'gemini', '--base-url', fake.url, '--out', 'g'],
      dir,
      'SIGINT',
      () => fake.requests.length > 0,
      300,
    );
    assertPrompt(r);
    assert.equal(existsSync(join(dir, 'g', LOCK_FILE)), false);
    assert.equal(manifestStatus(join(dir, 'g')), 'cancelled');
  } finally {
    await fake.close();
  }
});

test('SIGTERM during an offline judge of a large harness ends it at once; finished judgments are on disk', { timeout: 300_000 }, async () => {
  const dir = tempDir();
  const spec = bigSpec(dir, 100);
  const gen = spawn(process.execPath, [bin, 'generate', spec, '--out', 'h', '--simple', '300', '--complex', '300'], { cwd: dir, stdio: 'ignore' });
  assert.equal(await new Promise((res) => gen.on('exit', res)), 0);
  const r = await cancelDuring(['judge', 'h'], dir, 'SIGTERM', (e) => /judge: records \d+\/\d+/.test(e), 300);
  assertPrompt(r);
  assert.equal(existsSync(join(dir, 'h', LOCK_FILE)), false);
  const judged = readdirSync(join(dir, 'h', 'records')).filter((n) => readFileSync(join(dir, 'h', 'records', n), 'utf8').includes('"judgments"'));
  assert.ok(judged.length > 0, 'judgments finished before the signal are saved');
});

test('SIGINT while the agent waits on a hanging model ends run at once', { timeout: 180_000 }, async () => {
  const dir = tempDir();
  const spec = bigSpec(dir, 3);
  const gen = spawn(process.execPath, [bin, 'generate', spec, '--out', 'h', '--simple', '3', '--complex', '0'], { cwd: dir, stdio: 'ignore' });
  assert.equal(await new Promise((res) => gen.on('exit', res)), 0);
  const fake = await startFakeGemini({ apiKey: 'test-key' });
  try {
    fake.respondWith({ hang: true });
    const r = await cancelDuring(['run', 'h', '--agent', 'gemini', '--base-url', fake.url], dir, 'SIGINT', () => fake.requests.length > 0, 300);
    assertPrompt(r);
    assert.match(r.stderr, /cancelled/);
  } finally {
    await fake.close();
  }
});
