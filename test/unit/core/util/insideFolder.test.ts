/** Folders a workspace names stay inside it, as written and through symlinks. */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { resolveInside } from '../../../../src/core/util/insideFolder';

let root: string;
let ws: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-seer-inside-'));
  ws = join(root, 'ws');
  await mkdir(join(ws, 'evals'), { recursive: true });
  await mkdir(join(root, 'victim'));
  await symlink(join(root, 'victim'), join(ws, 'link'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('folders inside the workspace resolve, existing or not', async () => {
  assert.deepEqual(await resolveInside(ws, 'evals', 'x'), { ok: true, path: join(ws, 'evals') });
  assert.deepEqual(await resolveInside(ws, 'a/b/../c', 'x'), { ok: true, path: join(ws, 'a', 'c') });
  assert.deepEqual(await resolveInside(ws, join(ws, 'new'), 'x'), { ok: true, path: join(ws, 'new') });
});

test('"..", an absolute path elsewhere, and a symlink out are refused with the setting named', async () => {
  for (const p of ['../victim', '..', 'evals/../../victim', join(root, 'victim'), '/tmp', 'link', 'link/sub/deeper']) {
    const r = await resolveInside(ws, p, 'agentSeer.harnessFolder');
    assert.equal(r.ok, false, p);
    if (!r.ok) assert.match(r.message, /^agentSeer\.harnessFolder ".*" leads outside /);
  }
});
