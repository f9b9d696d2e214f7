/**
 * The docs are part of the product: the finding codes the help page documents must match the code,
 * and the README (the front page) and the pages under docs/ link only to files and anchors that exist
 * in the repository.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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

/** The pages a reader of the repository sees: the front page, CONTRIBUTING and every page under docs/. */
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks, with inline code spans kept (a heading's slug includes them). */
function prose(text: string): string[] {
  let fence = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fence = !fence;
    return !fence && !line.startsWith('```');
  });
}

/** GitHub's anchor for a heading (github-slugger: lower case, punctuation dropped, spaces to hyphens). */
function slug(heading: string): string {
  const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page has: its headings' slugs (repeats numbered as GitHub does) and `<a id>`s. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(readFileSync(join(repoRoot, file), 'utf8'))) {
    const h = /^#{1,6} (.+)$/.exec(line);
    if (h) {
      const base = slug(h[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n ? `${base}-${n}` : base);
    }
    for (const a of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(a[1]!);
  }
  return anchors;
}

/** The targets of a page's Markdown links and images, outside code. */
function linksOf(file: string): string[] {
  const lines = prose(readFileSync(join(repoRoot, file), 'utf8')).map((l) => l.replace(/`[^`]*`/g, ''));
  // A link may wrap: join the lines of a paragraph before matching.
  return [...lines.join(' ').matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

test('every relative link of the README and the docs pages resolves to a file in the repository, and every anchor to a heading', () => {
  const broken: string[] = [];
  for (const page of pages) {
    for (const target of linksOf(page)) {
      if (/^(https?|mailto):/.test(target)) continue;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path ? resolve(repoRoot, dirname(page), decodeURIComponent(path)) : join(repoRoot, page);
      const rel = relative(repoRoot, file);
      if (rel.startsWith('..') || rel.split(sep)[0] === '..') broken.push(`${page}: ${target} leaves the repository`);
      else if (!existsSync(file)) broken.push(`${page}: ${target}: no such file`);
      else if (anchor && file.endsWith('.md') && !anchorsOf(rel).has(anchor)) broken.push(`${page}: ${target}: no such anchor in ${rel}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the README is a front page: under 250 lines, with the two commands CI runs, the install step and the links to every docs page', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length <= 250, `README.md has ${readme.split('\n').length} lines`);
  assert.match(readme, /^bash scripts\/quickstart\.sh {3}#/m);
  assert.match(readme, /^npm test {21}#/m);
  assert.match(readme, /^npm link {18}#/m);
  assert.doesNotMatch(readme, /\.\.\/shared/);
  const linked = new Set(linksOf('README.md').map((t) => t.split('#')[0]));
  for (const page of pages.filter((p) => p.startsWith('docs/'))) assert.ok(linked.has(page), `README links ${page}`);
});
