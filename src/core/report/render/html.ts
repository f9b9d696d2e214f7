/**
 * The report as one self-contained HTML page that also works as a VS Code webview:
 * - CSP `default-src 'none'`; scripts and styles only with the page's nonce; images only `data:`.
 * - The model travels as JSON in `<script type="application/json" id="report-data">`, escaped
 *   so no `<`, `>`, `&`, U+2028 or U+2029 appears literally: it can never close the element or
 *   start markup, and it is read with `JSON.parse`, never evaluated.
 * - The page script (`media/report/report.ts`, bundled to `dist/report.js`) builds every table
 *   and figure from that JSON with `textContent` and canvas drawing; the server-side markup
 *   holds no spec or LLM text except the escaped `<title>`.
 * - Colours are CSS variables whose first choice is VS Code's `--vscode-*` theme variable.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ReportModel } from '../schema';

/** Where the page script comes from. */
export type ReportScript =
  /** The bundle's text, inlined with the nonce (standalone files; also fine in a webview). */
  | { inline: string }
  /** A URL to load it from, e.g. `webview.asWebviewUri(…/dist/report.js)`; the tag carries the nonce. */
  | { src: string };

/** Options of {@link renderHtml}. */
export interface HtmlOptions {
  /** CSP nonce (base64 or hex). Default: 16 random bytes. A webview passes its own. */
  nonce?: string;
  /**
   * A webview's `cspSource`; added to `style-src`, `img-src` and `font-src` so resources from
   * the extension may load. Omit for a standalone file.
   */
  cspSource?: string;
  /** The page script. Default: `dist/report.js` inlined (see {@link loadReportScript}). */
  script?: ReportScript;
  /**
   * Where the page gets its model: `embedded` (a JSON block in the page, for standalone files)
   * or `message` (a webview: the page posts `ready` and waits for a `report` message).
   */
  data?: 'embedded' | 'message';
}

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * JSON safe to place inside a `<script type="application/json">` element: `<`, `>`, `&`,
 * U+2028 and U+2029 become `\uXXXX` escapes, which `JSON.parse` reads back unchanged.
 */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Script text safe to inline in a `<script>` element: `</script` and `<!--` cannot occur in it
 * (they would end or confuse the element). `<\/` means the same as `</` in JS strings and regexes.
 */
export function scriptForHtml(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

const NONCE = /^[A-Za-z0-9+/_=-]{8,}$/;
// A CSP source expression: scheme, host with wildcards, port, path; nothing that ends the directive or attribute.
const CSP_SOURCE_TOKEN = /^('self'|[A-Za-z][A-Za-z0-9+.-]*:(\/\/)?[A-Za-z0-9*.:/_%-]*)$/;
/** A webview's cspSource: one or more source expressions (code-server gives several). */
const CSP_SOURCE = {
  test: (v: string): boolean =>
    v
      .trim()
      .split(/\s+/)
      .every((t) => CSP_SOURCE_TOKEN.test(t)),
};

/**
 * Finds the bundled page script: beside the running bundle (`dist/cli.js`, `dist/extension.js`
 * → `dist/report.js`), else in a `dist/` folder above this file (compiled tests run from `out/`).
 * Throws when it was never built.
 */
export function loadReportScript(): string {
  const candidates = [join(__dirname, 'report.js')];
  for (let dir = __dirname, i = 0; i < 8; i++, dir = dirname(dir)) candidates.push(join(dir, 'dist', 'report.js'));
  for (const file of candidates) if (existsSync(file)) return readFileSync(file, 'utf8');
  throw new Error('the report page script (dist/report.js) is not built: run `npm run build`');
}

const STYLE = `
:root {
  --fallback-fg: #1f2328; --fallback-bg: #ffffff; --fallback-muted: #59636e; --fallback-border: #d1d9e0;
  --fallback-head: #f6f8fa; --fallback-link: #0969da; --fallback-warn-bg: #fff8c5;
  --fg: var(--vscode-editor-foreground, var(--fallback-fg));
  --bg: var(--vscode-editor-background, var(--fallback-bg));
  --muted: var(--vscode-descriptionForeground, var(--fallback-muted));
  --border: var(--vscode-panel-border, var(--fallback-border));
  --head: var(--vscode-editorWidget-background, var(--fallback-head));
  --link: var(--vscode-textLink-foreground, var(--fallback-link));
  --warn-bg: var(--vscode-inputValidation-warningBackground, var(--fallback-warn-bg));
  --c1: var(--vscode-charts-blue, #0969da);
  --c2: var(--vscode-charts-orange, #bc4c00);
  --c3: var(--vscode-charts-purple, #8250df);
  --c4: var(--vscode-charts-green, #1a7f37);
  --good: var(--vscode-charts-green, #1a7f37);
  --warn: var(--vscode-charts-yellow, #bf8700);
  --bad: var(--vscode-charts-red, #cf222e);
  --font: var(--vscode-font-family, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  --mono: var(--vscode-editor-font-family, ui-monospace, SFMono-Regular, Menlo, monospace);
}
@media (prefers-color-scheme: dark) {
  :root { --fallback-fg: #e6edf3; --fallback-bg: #0d1117; --fallback-muted: #9198a1; --fallback-border: #3d444d;
    --fallback-head: #151b23; --fallback-link: #4493f8; --fallback-warn-bg: #3b2e0a; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.5 var(--font); }
main { max-width: 1280px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 1.6em; margin: 0.2em 0; }
h2 { font-size: 1.3em; margin: 1.6em 0 0.4em; padding-bottom: 0.2em; border-bottom: 1px solid var(--border); }
h3 { font-size: 1.05em; margin: 1.2em 0 0.2em; }
h4 { font-size: 0.95em; margin: 0 0 0.3em; }
a { color: var(--link); }
.meta, .caption, figcaption { color: var(--muted); }
.caption { margin: 0 0 0.5em; font-size: 0.9em; }
figcaption { font-size: 0.85em; margin-top: 0.3em; }
.warnings { background: var(--warn-bg); border: 1px solid var(--border); border-radius: 6px; padding: 4px 16px; margin: 12px 0; }
.warnings h2 { border: none; margin: 0.5em 0 0; font-size: 1.05em; }
.toc ul { display: flex; flex-wrap: wrap; gap: 4px 16px; list-style: none; padding: 0; margin: 8px 0; font-size: 0.9em; }
.table-scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.9em; margin-bottom: 0.5em; }
th, td { border: 1px solid var(--border); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--head); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.figure-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 16px; margin: 8px 0 16px; }
.figure-grid.wide { grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); }
.chart-figure { margin: 0; border: 1px solid var(--border); border-radius: 6px; padding: 10px 12px; min-width: 0; }
.chart { position: relative; height: 240px; }
.chart-figure.tall .chart { height: 420px; }
.empty { color: var(--muted); font-style: italic; }
.note { border-left: 3px solid var(--border); padding: 2px 12px; margin: 8px 0; }
.server-figures h3 { margin-top: 1.4em; }
td.cue-below { color: var(--bad); font-weight: 600; }
td.cue-within { color: var(--fg); }
td.cue-above { color: var(--good); }
#s-worst { border: 1px solid var(--border); border-radius: 6px; padding: 0 12px 8px; }
`;

/** Renders the report page. See the module comment for the security properties. */
export function renderHtml(model: ReportModel, options: HtmlOptions = {}): string {
  const nonce = options.nonce ?? randomBytes(16).toString('base64');
  if (!NONCE.test(nonce)) throw new Error('renderHtml: the nonce must be base64 or hex');
  const extra = options.cspSource ?? '';
  if (extra && !CSP_SOURCE.test(extra)) throw new Error('renderHtml: cspSource is not a CSP source expression');
  const src = (kind: string) => `${kind} ${extra ? `${extra} ` : ''}'nonce-${nonce}'`;
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    src('style-src'),
    `img-src ${extra ? `${extra} ` : ''}data:`,
    ...(extra ? [`font-src ${extra}`] : []),
  ].join('; ');
  const script = options.script ?? { inline: loadReportScript() };
  const scriptTag =
    'inline' in script
      ? `<script nonce="${nonce}">${scriptForHtml(script.inline)}</script>`
      : `<script nonce="${nonce}" src="${escapeHtml(script.src)}"></script>`;
  const names = model.structure.map((s) => s.name).join(', ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(names ? `Agent Seer report — ${names}` : 'Agent Seer report')}</title>`,
    `<style nonce="${nonce}">${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main id="report"><p class="meta">Loading the report… (it needs JavaScript)</p></main>',
    ...(options.data === 'message' ? [] : [`<script type="application/json" id="report-data">${jsonForHtml(model)}</script>`]),
    scriptTag,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
