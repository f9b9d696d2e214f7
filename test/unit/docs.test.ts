/** The README is part of the product: the finding codes it documents must match the code. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FINDING_CODE_LIST, FINDING_CODES } from '../../src/core/complexity';
import { repoRoot } from './fixturePaths';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

test('every finding code has a README section (diagnostics link to it), and no section is stale', () => {
  // Finding sections are the README's only kebab-case level-3 headings.
  const documented = [...readme.matchAll(/^### ([a-z]+(?:-[a-z]+)+)$/gm)].map((m) => m[1]!);
  assert.deepEqual(documented.sort(), [...FINDING_CODE_LIST].sort());
});

test("each README finding section states the code's severity", () => {
  for (const code of FINDING_CODE_LIST) {
    const section = readme.split(`### ${code}\n`)[1]?.split('\n###')[0] ?? '';
    assert.match(section, new RegExp(`^${FINDING_CODES[code].severity} —`), code);
  }
});
