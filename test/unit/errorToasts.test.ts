/** Every error and warning toast of the extension offers "Show Log": they all go through showError / showWarning (src/extension/log.ts). */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from './fixturePaths';

/** Files allowed to call the toast API directly, and why. */
const ALLOWED: Record<string, string> = {
  'log.ts': 'the helpers themselves',
  'trust.ts': "Restricted Mode's message offers Manage Workspace Trust instead",
};

test('the extension shows errors and non-modal warnings only through showError / showWarning', () => {
  const dir = join(repoRoot, 'src', 'extension');
  const offenders: string[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    if (ALLOWED[name]) continue;
    const text = readFileSync(join(dir, name), 'utf8');
    // A warning with `{ modal: true }` is a confirmation (Start Server, Snapshot Tools first), not a toast.
    for (const m of text.matchAll(/\.show(Error|Warning)Message\(([^)]{0,300})/g)) {
      if (m[1] === 'Warning' && /modal: true/.test(m[2] ?? '')) continue;
      offenders.push(`${name}: ${m[0].slice(0, 80)}`);
    }
  }
  assert.deepEqual(offenders, []);
});
