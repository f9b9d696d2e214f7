/** Where test fixtures live. Shared fixtures sit beside the clone (`../shared`), in CI too. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Spec } from '../../src/core/spec/model';
import { loadSpecText } from '../../src/core/spec/snapshot';

/** The repository root (compiled tests run from out/test/unit). */
export const repoRoot = resolve(__dirname, '..', '..', '..');
/** The shared folder: `AGENT_SEER_SHARED` or `../shared` beside the clone. Read-only: never write there. */
export const sharedDir = process.env.AGENT_SEER_SHARED ?? resolve(repoRoot, '..', 'shared');
export const specsDir = resolve(sharedDir, 'fixtures', 'specs');
export const configsDir = resolve(sharedDir, 'fixtures', 'configs');
/** The compiled fixture servers of this repo (out/test/fixtures/servers). */
export const compiledServersDir = resolve(__dirname, '..', 'fixtures', 'servers');
/** Fixtures that belong to this repo (test/fixtures). */
export const localFixturesDir = resolve(repoRoot, 'test', 'fixtures');

/** The shared fixture specs' file names, sorted. */
export function fixtureSpecFiles(): string[] {
  return readdirSync(specsDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

/** A shared fixture spec by file name; fails the test when it does not load. */
export function loadFixtureSpec(file: string): Spec {
  const r = loadSpecText(readFileSync(join(specsDir, file), 'utf8'), join(specsDir, file));
  assert.ok(r.ok, file);
  return r.spec;
}
