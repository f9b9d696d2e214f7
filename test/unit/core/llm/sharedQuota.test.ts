/**
 * One rate budget per account across commands and processes (`sharedQuota.ts`): two real
 * processes (`quotaChild.js`, the real `@google/genai` client through `createCallGuard`) on one
 * fake Gemini whose quota is a sliding window with 429 + Retry-After, back to back and at once,
 * draw no 429; and the window learns from a 429 and survives a lock left by a killed process.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { QUOTA_DIR, quotaScopeOf, SharedQuota, type Clock } from '../../../../src/core/llm';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import { quotaGate } from '../../../fakes/quotaGate';
import { QUOTA_TEST_KEY } from './quotaChild';

const child = join(__dirname, 'quotaChild.js');
/** The fake's quota: LIMIT requests per WINDOW_MS; the clients keep a window 300 ms longer (the margin RPM_WINDOW_MS keeps). */
const LIMIT = 5;
const WINDOW_MS = 4000;
const CLIENT_WINDOW_MS = WINDOW_MS + 300;

interface ChildOut {
  replies: number;
  retries: { 'rate-limit': number };
}

function runChild(baseUrl: string, cacheDir: string, n: number): Promise<ChildOut> {
  const proc = spawn(process.execPath, [child, '--quota-child', baseUrl, cacheDir, String(n), String(LIMIT), String(CLIENT_WINDOW_MS)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  return new Promise((resolve, reject) => {
    proc.on('error', reject);
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(stdout) as ChildOut) : reject(new Error(`child exited ${code}: ${stderr}`))));
  });
}

async function withQuotaFake(test: (url: string, cacheDir: string, gate: ReturnType<typeof quotaGate>) => Promise<void>): Promise<void> {
  const fake = await startFakeGemini({ apiKey: QUOTA_TEST_KEY });
  const gate = quotaGate({ limit: LIMIT, windowMs: WINDOW_MS });
  fake.respondWith((req) => gate.check(req) ?? { text: 'ok', delayMs: 50 });
  const cacheDir = await mkdtemp(join(tmpdir(), 'agent-seer-quota-'));
  try {
    await test(fake.url, cacheDir, gate);
  } finally {
    await fake.close();
    await rm(cacheDir, { recursive: true, force: true });
  }
}

describe('the quota shared across processes', () => {
  it("two processes back to back on one key: the second waits out the first one's window, no 429", async () => {
    await withQuotaFake(async (url, cacheDir, gate) => {
      const first = await runChild(url, cacheDir, 8);
      const second = await runChild(url, cacheDir, LIMIT);
      assert.equal(first.replies + second.replies, 8 + LIMIT);
      assert.equal(gate.rejected, 0, 'no request over the quota');
      assert.equal(first.retries['rate-limit'] + second.retries['rate-limit'], 0);
      // 13 calls at 5 per window: the last could not start before two whole windows.
      const span = (gate.accepted.at(-1) ?? 0) - (gate.accepted[0] ?? 0);
      assert.ok(span >= 2 * WINDOW_MS, `span ${span} ms`);
      const files = await readdir(join(cacheDir, QUOTA_DIR));
      assert.deepEqual(files.filter((f) => f.endsWith('.json')).length, 1, files.join(', '));
      const text = await readFile(join(cacheDir, QUOTA_DIR, files.find((f) => f.endsWith('.json')) ?? ''), 'utf8');
      assert.ok(!text.includes(QUOTA_TEST_KEY), 'the key is never written');
    });
  });

  it('two processes at once on one key share one window: no 429', async () => {
    await withQuotaFake(async (url, cacheDir, gate) => {
      const [a, b] = await Promise.all([runChild(url, cacheDir, LIMIT + 1), runChild(url, cacheDir, LIMIT + 1)]);
      assert.equal(a.replies + b.replies, 2 * (LIMIT + 1));
      assert.equal(gate.rejected, 0, 'no request over the quota');
      assert.equal(a.retries['rate-limit'] + b.retries['rate-limit'], 0);
    });
  });
});

/** A clock whose sleeps advance it at once, recording when each wait ended. */
function fakeClock(start: number): Clock & { t: number } {
  const c = {
    t: start,
    now: () => c.t,
    sleep: (ms: number) => {
      c.t += ms;
      return Promise.resolve();
    },
  };
  return c;
}

describe('SharedQuota', () => {
  const scope = quotaScopeOf('gemini', 'http://127.0.0.1:1', 'secret-key-1234');

  it('a 429 fills the window to the limit and holds every start until its Retry-After', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-quota-unit-'));
    try {
      const clock = fakeClock(1_000_000);
      const quota = new SharedQuota(dir, scope, clock);
      const limit = { limit: 3, windowMs: 3000 };
      await quota.acquire(limit); // one start of ours at t0
      await quota.rateLimited(2000, limit); // the provider counts 3: two more we never saw
      const starts: number[] = [];
      for (let i = 0; i < 3; i++) {
        await quota.acquire(limit);
        starts.push(clock.t - 1_000_000);
      }
      assert.ok((starts[0] ?? 0) >= 2000, `first start after the Retry-After, got ${starts[0]}`);
      assert.ok((starts[2] ?? 0) < 3000 + 1, `the inferred starts leave before a whole window passes, got ${starts.join(', ')}`);
      // Another instance (another process) on the same folder sees the same window.
      const other = new SharedQuota(dir, scope, clock);
      const before = clock.t;
      await other.acquire(limit);
      assert.ok(clock.t > before, 'the window is full for the other process too');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a line of callers at once is served in order, within the limit, and each start is on file once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-quota-line-'));
    try {
      // Time moves on only after what was granted has run (a real wait lets the granted go first).
      const clock = { t: 2_000_000, now: () => clock.t, sleep: (ms: number) => new Promise<void>((r) => setImmediate(() => ((clock.t += ms), r()))) };
      const quota = new SharedQuota(dir, scope, clock);
      const limit = { limit: 4, windowMs: 1000 };
      const granted: Array<{ i: number; at: number }> = [];
      // Ten callers in line at once (one tick): served together while the window has room.
      await Promise.all(Array.from({ length: 10 }, (_, i) => quota.acquire(limit).then(() => granted.push({ i, at: clock.t - 2_000_000 }))));
      assert.deepEqual(
        granted.map((g) => g.i),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        'first come, first served',
      );
      assert.deepEqual(
        granted.map((g) => g.at),
        [0, 0, 0, 0, 1000, 1000, 1000, 1000, 2000, 2000],
        'four per window, the next four when the first four leave it',
      );
      const file = JSON.parse(await readFile(quota.file, 'utf8')) as { starts: number[] };
      assert.deepEqual(
        file.starts.map((t) => t - 2_000_000),
        [2000, 2000],
        "the window's starts, each once (those that left it pruned)",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a lock left by a killed process does not hang anyone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-quota-lock-'));
    try {
      const quota = new SharedQuota(dir, scope);
      mkdirSync(dir, { recursive: true });
      // A pid that is no longer running: a child that has exited.
      const dead = spawnSync(process.execPath, ['-e', '0']).pid ?? 999_999;
      writeFileSync(`${quota.file}.lock`, String(dead));
      const old = new Date(Date.now() - 1000);
      utimesSync(`${quota.file}.lock`, old, old);
      const t0 = Date.now();
      await quota.acquire({ limit: 10, windowMs: 60_000 });
      assert.ok(Date.now() - t0 < 2000, "the dead holder's lock is broken at once");
      // And an empty lock (a holder killed before writing its pid) is broken once it is stale.
      writeFileSync(`${quota.file}.lock`, '');
      const older = new Date(Date.now() - 60_000);
      utimesSync(`${quota.file}.lock`, older, older);
      await quota.acquire({ limit: 10, windowMs: 60_000 });
      const file = JSON.parse(await readFile(quota.file, 'utf8')) as { starts: number[] };
      assert.equal(file.starts.length, 2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the quota by provider, endpoint and a hash of the key', () => {
    const a = quotaScopeOf('gemini', 'http://x', 'key-a');
    assert.equal(a.keyHash.length, 16);
    assert.ok(!JSON.stringify(a).includes('key-a'));
    assert.notEqual(new SharedQuota('/q', a).file, new SharedQuota('/q', quotaScopeOf('gemini', 'http://x', 'key-b')).file);
    assert.notEqual(new SharedQuota('/q', a).file, new SharedQuota('/q', quotaScopeOf('openai', 'http://x', 'key-a')).file);
  });
});

describe('SharedQuota in one process', () => {
  it('a caller cancelled while in line behind a wait leaves at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-quota-abort-'));
    try {
      const quota = new SharedQuota(dir, quotaScopeOf('gemini', undefined, 'k'));
      const limit = { limit: 1, windowMs: 60_000 };
      await quota.acquire(limit);
      const first = new AbortController();
      const waiting = quota.acquire(limit, first.signal); // waits a minute for the window
      const second = new AbortController();
      const queued = quota.acquire(limit, second.signal); // in line behind it
      const t0 = Date.now();
      second.abort(new Error('cancelled'));
      await assert.rejects(queued, /cancelled/);
      assert.ok(Date.now() - t0 < 1000);
      first.abort(new Error('done'));
      await assert.rejects(waiting, /done/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
