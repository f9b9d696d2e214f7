/**
 * Prompt templates: text files under `prompts/` (never strings in code), named
 * `<name>.v<N>.txt`. A template's version is its file's tag plus a hash of its text
 * (`v1+3fa2c9d0`), so an edited template changes every cache key and every record's
 * provenance even when nobody bumps the tag.
 *
 * Syntax, deliberately tiny:
 * - `{{name}}` inserts a value verbatim (values are never rendered again, so spec text that
 *   happens to contain braces stays data);
 * - `{{#name}}…{{/name}}` keeps the block when the value is truthy (non-empty string, true,
 *   non-zero number), `{{^name}}…{{/name}}` when it is falsy. Sections do not nest with the
 *   same name;
 * - a line starting with `#!` is a note for maintainers and is dropped.
 * A placeholder without a value is a bug in the caller and throws.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Values a template is rendered with. */
export type PromptValues = Readonly<Record<string, string | number | boolean>>;

/** One loaded template. */
export interface PromptTemplate {
  /** Name without version and extension (`scenarios-simple`). */
  name: string;
  /** `v<N>+<first 8 hex of sha256(text)>`. */
  version: string;
  /** The template text (maintainer notes removed). */
  text: string;
  /** File it was read from. */
  file: string;
}

/** A rendered prompt with the version of the template it came from. */
export interface RenderedPrompt {
  text: string;
  version: string;
}

const FILE_RE = /^([a-z0-9][a-z0-9-]*)\.v(\d+)\.txt$/;

/**
 * The folder holding `prompts/`: the nearest ancestor of this module that has both
 * `package.json` and `prompts/`. The bundles (dist/cli.js, dist/extension.js) and the compiled
 * tests (out/src/core/pipeline/…) sit at different depths, so the folder is found, not assumed.
 */
export function defaultPromptsDir(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'prompts'))) return join(dir, 'prompts');
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the prompts folder above ${from}`);
    dir = parent;
  }
}

/** Renders a template text with values (see the module doc for the syntax). */
export function renderTemplate(text: string, values: PromptValues, what = 'template'): string {
  const truthy = (name: string): boolean => {
    const v = values[name];
    return v !== undefined && v !== '' && v !== false && v !== 0;
  };
  const sectioned = text.replace(/\{\{([#^])\s*([\w-]+)\s*\}\}([\s\S]*?)\{\{\/\s*\2\s*\}\}/g, (_m, kind: string, name: string, body: string) =>
    (kind === '#') === truthy(name) ? body : '',
  );
  const out = sectioned.replace(/\{\{\s*([\w-]+)\s*\}\}/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`${what}: no value for {{${name}}}`);
    return String(v);
  });
  // Dropped sections leave runs of blank lines behind.
  return out.replace(/\n{3,}/g, '\n\n').trim() + '\n';
}

/** The placeholders a template uses (sections included). */
export function placeholdersOf(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\{\{[#^/]?\s*([\w-]+)\s*\}\}/g)) if (m[1]) names.add(m[1]);
  return [...names].sort();
}

/** The templates of a prompts folder, highest version of each name. */
export class PromptLibrary {
  private constructor(
    readonly dir: string,
    private readonly templates: ReadonlyMap<string, PromptTemplate>,
  ) {}

  /** Loads every `<name>.v<N>.txt` of `dir` (default: {@link defaultPromptsDir}). */
  static load(dir: string = defaultPromptsDir()): PromptLibrary {
    const best = new Map<string, { n: number; file: string }>();
    for (const entry of readdirSync(dir)) {
      const m = FILE_RE.exec(entry);
      if (!m?.[1] || !m[2]) continue;
      const n = Number(m[2]);
      const prev = best.get(m[1]);
      if (!prev || n > prev.n) best.set(m[1], { n, file: join(dir, entry) });
    }
    const templates = new Map<string, PromptTemplate>();
    for (const [name, { n, file }] of best) {
      const raw = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
      const text = raw
        .split('\n')
        .filter((l) => !l.startsWith('#!'))
        .join('\n');
      const hash = createHash('sha256').update(text).digest('hex').slice(0, 8);
      templates.set(name, { name, version: `v${n}+${hash}`, text, file });
    }
    return new PromptLibrary(dir, templates);
  }

  /** Names of the loaded templates. */
  names(): string[] {
    return [...this.templates.keys()].sort();
  }

  /** A template by name; throws when the folder has none of that name. */
  get(name: string): PromptTemplate {
    const t = this.templates.get(name);
    if (!t) throw new Error(`no prompt template "${name}" in ${this.dir} (expected ${name}.v1.txt)`);
    return t;
  }

  /** Renders a template by name. */
  render(name: string, values: PromptValues): RenderedPrompt {
    const t = this.get(name);
    return { text: renderTemplate(t.text, values, `prompt ${name}`), version: t.version };
  }
}
