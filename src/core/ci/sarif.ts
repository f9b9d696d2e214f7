/**
 * SARIF 2.1.0 logs (what GitHub code scanning uploads) and GitHub Actions workflow commands
 * (`::error file=…::…`) for findings placed in files. Both read one {@link CiFinding}, so a
 * finding says the same in the code-scanning view, in the job log and in the editor. Pure.
 */
import { relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TextRange } from '../spec/jsonText';

export type CiLevel = 'error' | 'warning' | 'note';

/** A finding in a file, at a range of its text (0-based, as the editor's diagnostics). */
export interface CiFinding {
  ruleId: string;
  level: CiLevel;
  message: string;
  /** Absolute path. */
  file: string;
  range?: TextRange;
  /** A short title for an annotation (the rule's title, the record id…). */
  title?: string;
  /** Other places the finding is about (the other tools sharing a parameter). */
  related?: { message: string; range: TextRange }[];
}

export interface SarifRule {
  id: string;
  title: string;
  description: string;
  level: CiLevel;
  helpUri?: string;
}

/** The severity words of findings (`info` is SARIF's `note`). */
export function ciLevel(severity: 'error' | 'warning' | 'info' | 'note'): CiLevel {
  return severity === 'info' ? 'note' : severity;
}

/** A path relative to `base` with forward slashes, as SARIF and GitHub want it; absolute when outside `base`. */
export function relativeUri(file: string, base: string): string {
  const rel = relative(base, file);
  if (!rel || rel.startsWith('..') || /^[a-zA-Z]:/.test(rel) || rel.startsWith(sep)) return pathToFileURL(file).href;
  return rel.split(sep).map(encodeURIComponent).join('/');
}

/** The 1-based region of a range (SARIF counts UTF-16 code units by default, as JavaScript strings do). */
function region(r: TextRange): { startLine: number; startColumn: number; endLine: number; endColumn: number } {
  return { startLine: r.start.line + 1, startColumn: r.start.character + 1, endLine: r.end.line + 1, endColumn: r.end.character + 1 };
}

/**
 * A SARIF log of one run: `rules` in order, each result pointing at its rule by id and index.
 * Paths are relative to `baseDir` under the `SRCROOT` base id, so code scanning, run from the
 * repository root, maps them onto the repository's files.
 */
export function sarifLog(o: {
  tool: string;
  informationUri?: string;
  rules: readonly SarifRule[];
  findings: readonly CiFinding[];
  baseDir: string;
}): Record<string, unknown> {
  const index = new Map(o.rules.map((r, i) => [r.id, i]));
  const results = o.findings.map((f) => {
    const ruleIndex = index.get(f.ruleId);
    const uri = relativeUri(f.file, o.baseDir);
    const artifactLocation = uri.startsWith('file:') ? { uri } : { uri, uriBaseId: 'SRCROOT' };
    return {
      ruleId: f.ruleId,
      ...(ruleIndex !== undefined ? { ruleIndex } : {}),
      level: f.level,
      message: { text: f.message },
      locations: [{ physicalLocation: { artifactLocation, ...(f.range ? { region: region(f.range) } : {}) } }],
      ...(f.related?.length
        ? {
            relatedLocations: f.related.map((r, id) => ({ id, message: { text: r.message }, physicalLocation: { artifactLocation, region: region(r.range) } })),
          }
        : {}),
    };
  });
  const base = pathToFileURL(o.baseDir).href;
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: o.tool,
            ...(o.informationUri ? { informationUri: o.informationUri } : {}),
            rules: o.rules.map((r) => ({
              id: r.id,
              name: r.id,
              shortDescription: { text: r.title },
              fullDescription: { text: r.description },
              defaultConfiguration: { level: r.level },
              ...(r.helpUri ? { helpUri: r.helpUri } : {}),
            })),
          },
        },
        originalUriBaseIds: { SRCROOT: { uri: base.endsWith('/') ? base : `${base}/` } },
        results,
      },
    ],
  };
}

/** The SARIF text of a log (one file, newline-terminated). */
export function sarifText(log: Record<string, unknown>): string {
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** Whether a process runs as a GitHub Actions step (the runner sets `GITHUB_ACTIONS=true`). */
export function inGithubActions(env: NodeJS.ProcessEnv): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/** A workflow command's message: `%`, CR and LF escaped (GitHub's `escapeData`). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property value: also `:` and `,`, which end a property (GitHub's `escapeProperty`). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message` (a note is a `::notice`). */
export function githubAnnotation(f: CiFinding, cwd: string): string {
  const command = f.level === 'note' ? 'notice' : f.level;
  const rel = relative(cwd, f.file).split(sep).join('/') || f.file;
  const props: [string, string][] = [['file', rel]];
  if (f.range) {
    const r = region(f.range);
    props.push(['line', String(r.startLine)], ['col', String(r.startColumn)], ['endLine', String(r.endLine)], ['endColumn', String(r.endColumn)]);
  }
  props.push(['title', f.title ?? f.ruleId]);
  return `::${command} ${props.map(([k, v]) => `${k}=${escapeProperty(v)}`).join(',')}::${escapeData(f.message)}`;
}
