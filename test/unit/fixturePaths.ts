/** Where test fixtures live. Shared fixtures sit beside the clone (`../shared`), in CI too. */
import { resolve } from 'node:path';

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
