/**
 * containment.ts: below a trusted folder, nothing is read, written or removed through a symbolic
 * link — at the end of the path or anywhere on the way — and the error names the link.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  checkHarnessFolder,
  checkInside,
  ContainmentError,
  ensureFolderInside,
  listInside,
  readFileInside,
  removeFileInside,
  removeFolderInside,
  writeFileInside,
} from '../../../src/core/containment';
import { assertNotLocked, FolderLockedError } from '../../../src/core/harness/lock';
import { readHarness } from '../../../src/core/harness/store';

const made: string[] = [];
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `<tmp>/h` (the trusted folder) and `<tmp>/outside` holding a file `victim.txt`. */
function layout(): { h: string; outside: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'agent-seer-containment-'));
  made.push(tmp);
  const h = join(tmp, 'h');
  const outside = join(tmp, 'outside');
  mkdirSync(h);
  mkdirSync(outside);
  writeFileSync(join(outside, 'victim.txt'), 'SECRET-BYTES\n');
  return { h, outside };
}

async function refusedAt(p: Promise<unknown>, path: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ContainmentError, String(e));
    assert.equal(e.path, path);
    assert.equal(e.problem, 'link');
    assert.match(e.message, /is a symbolic link \(to ".+"\): refused/);
    assert.ok(!e.message.includes('SECRET'), 'never the target content');
    return true;
  });
}

test('a linked folder on the way refuses reading, writing, listing and removing; nothing outside changes', async () => {
  const { h, outside } = layout();
  symlinkSync(outside, join(h, 'records'));
  const file = join(h, 'records', 'victim.txt');
  await refusedAt(readFileInside(h, file), join(h, 'records'));
  await refusedAt(writeFileInside(h, join(h, 'records', 'new.json'), '{}'), join(h, 'records'));
  await refusedAt(removeFileInside(h, file), join(h, 'records'));
  await refusedAt(listInside(h, join(h, 'records')), join(h, 'records'));
  await refusedAt(ensureFolderInside(h, join(h, 'records', 'sub')), join(h, 'records'));
  await refusedAt(removeFolderInside(h, join(h, 'records', 'x')), join(h, 'records'));
  assert.deepEqual(readdirSync(outside), ['victim.txt']);
  assert.equal(readFileSync(join(outside, 'victim.txt'), 'utf8'), 'SECRET-BYTES\n');
});

test('a linked file is not read, not replaced and not removed; its siblings are', async () => {
  const { h, outside } = layout();
  mkdirSync(join(h, 'records'));
  writeFileSync(join(h, 'records', 'ok.json'), '{"a":1}');
  symlinkSync(join(outside, 'victim.txt'), join(h, 'records', 'x.json'));
  const link = join(h, 'records', 'x.json');
  await refusedAt(readFileInside(h, link), link);
  await refusedAt(writeFileInside(h, link, '{}'), link);
  await refusedAt(removeFileInside(h, link), link);
  await refusedAt(listInside(h, join(h, 'records'), { refuseLinks: true }), link);
  assert.equal(await readFileInside(h, join(h, 'records', 'ok.json')), '{"a":1}');
  assert.equal(await removeFileInside(h, join(h, 'records', 'ok.json')), true);
  assert.equal(await removeFileInside(h, join(h, 'records', 'gone.json')), false, 'a missing file is not an error');
  assert.equal(readFileSync(join(outside, 'victim.txt'), 'utf8'), 'SECRET-BYTES\n');
});

test('writing creates real folders; a path outside the trusted folder is a programming error', async () => {
  const { h } = layout();
  await writeFileInside(h, join(h, 'runs', 'a', '1', 't.json'), 'x');
  assert.equal(readFileSync(join(h, 'runs', 'a', '1', 't.json'), 'utf8'), 'x');
  assert.ok((await checkInside(h, join(h, 'runs', 'a')))?.isDirectory());
  assert.equal(await checkInside(h, join(h, 'nothing', 'here')), undefined);
  await assert.rejects(checkInside(h, join(h, '..', 'outside')), /internal: .* is not inside/);
});

test('checkHarnessFolder finds a link deep in .cache or runs/, and a linked manifest; readHarness refuses before reading', async () => {
  const { h, outside } = layout();
  mkdirSync(join(h, '.cache', 'llm', 'ab'), { recursive: true });
  symlinkSync(outside, join(h, '.cache', 'llm', 'ab', 'cd'));
  await refusedAt(checkHarnessFolder(h), join(h, '.cache', 'llm', 'ab', 'cd'));
  rmSync(join(h, '.cache'), { recursive: true });
  symlinkSync(join(outside, 'victim.txt'), join(h, 'manifest.json'));
  await refusedAt(readHarness(h), join(h, 'manifest.json'));
});

test('assertNotLocked: a live holder is named, a dead one is not, a linked lock file is refused', async () => {
  const { h, outside } = layout();
  await assertNotLocked(h);
  const since = new Date().toISOString();
  writeFileSync(join(h, '.agent-seer.lock'), JSON.stringify({ pid: process.pid, hostname: hostname(), purpose: 'judge', since }));
  await assert.rejects(assertNotLocked(h), (e: unknown) => e instanceof FolderLockedError && /another judge run \(pid \d+, since /.test(e.message));
  writeFileSync(join(h, '.agent-seer.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, hostname: hostname(), purpose: 'judge', since }));
  await assertNotLocked(h);
  rmSync(join(h, '.agent-seer.lock'));
  symlinkSync(join(outside, 'victim.txt'), join(h, '.agent-seer.lock'));
  await refusedAt(assertNotLocked(h), join(h, '.agent-seer.lock'));
});
