/** The docs are part of the product: the finding codes the help page documents must match the code. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FINDING_CODE_LIST, FINDING_CODES, type FindingCodeDoc } from '../../src/core/complexity';
import { repoRoot } from './fixturePaths';

// The help page diagnostics link to (opened in Markdown preview at the code's section).
const findingsPage = readFileSync(join(repoRoot, 'docs', 'findings.md'), 'utf8');

test('every finding code has a section on the help page (diagnostics link to it), and no section is stale', () => {
  // Finding sections are the page's only kebab-case level-2 headings.
  const documented = [...findingsPage.matchAll(/^## ([a-z]+(?:-[a-z]+)+)$/gm)].map((m) => m[1]!);
  assert.deepEqual(documented.sort(), [...FINDING_CODE_LIST].sort());
});

test("each help page section states the code's severity, and a client code links its source", () => {
  for (const code of FINDING_CODE_LIST) {
    const section = findingsPage.split(`## ${code}\n`)[1]?.split('\n## ')[0] ?? '';
    const { source } = FINDING_CODES[code] as FindingCodeDoc;
    if (source) assert.ok(section.includes(`(${source})`), `${code} cites ${source}`);
    assert.match(section, new RegExp(`^${FINDING_CODES[code].severity} —`), code);
  }
});
