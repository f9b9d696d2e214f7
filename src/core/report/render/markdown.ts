/**
 * The report as Markdown: a heading per section and a pipe table per table (GitHub-flavoured).
 * Every cell, title and caption can carry spec or LLM text (tool, server, category and judge
 * names), so all of it is escaped: no HTML tag, link, emphasis or table break can come through.
 */
import type { ReportModel } from '../schema';
import { headline, reportTables, type ReportTable } from '../tables';

/**
 * Escapes text for a Markdown table cell or a line of prose. Besides inline markup, a leading
 * block marker (`#`, `- `, `+ `, `1. `; `>` is already `&gt;`) is escaped: headline and warning
 * lines are list items, where a name like `# x` or `1. x` would open a heading or a nested list.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r\n|\r|\n|\u2028|\u2029/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[|~])/g, '\\$1')
    .replace(/^\s+/, '')
    .replace(/^(#|[+-](?=\s|$))/, '\\$1')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2');
}

function renderTable(t: ReportTable): string {
  const cell = escapeMarkdown;
  const lines = [`### ${escapeMarkdown(t.title)}`, '', escapeMarkdown(t.caption), ''];
  // reportTables keeps a table of no rows only when it says what that means.
  if (t.rows.length === 0) return [...lines, `_${escapeMarkdown(t.empty ?? 'No data.')}_`, ''].join('\n');
  lines.push(`| ${t.headers.map(cell).join(' | ')} |`);
  lines.push(`| ${t.align.map((a) => (a === 'right' ? '---:' : ':---')).join(' | ')} |`);
  t.rows.forEach((r, i) => {
    const link = t.links?.[i];
    // The first cell links its file (a record), as on the HTML page: a path of ours, percent-encoded.
    const first = (text: string): string => (link ? `[${cell(text)}](${encodeURI(link).replace(/\(/g, '%28').replace(/\)/g, '%29')})` : cell(text));
    lines.push(`| ${r.map((c, k) => (k === 0 ? first(c) : cell(c))).join(' | ')} |`);
  });
  lines.push('');
  return lines.join('\n');
}

/** Renders the whole report as Markdown. */
export function renderMarkdown(model: ReportModel): string {
  const out: string[] = ['# Agent Seer report', ''];
  const judges = model.judges.map((j) => j.judge ?? '(none)');
  out.push(
    escapeMarkdown(
      `Servers: ${model.structure.map((s) => s.name).join(', ') || '(none)'}. Judges: ${judges.join(', ')}. ` +
        `Intervals: ${Math.round(model.settings.level * 100)}% percentile bootstrap, B = ${model.settings.resamples}, seed ${model.settings.seed}.`,
    ),
    '',
  );
  for (const line of headline(model)) out.push(`- ${escapeMarkdown(line)}`);
  out.push('');
  if (model.warnings.length) {
    out.push('> **Warnings**', '>');
    for (const w of model.warnings) out.push(`> - ${escapeMarkdown(w)}`);
    out.push('');
  }
  for (const section of reportTables(model)) {
    out.push(`## ${escapeMarkdown(section.title)}`, '');
    for (const note of section.notes ?? []) out.push(escapeMarkdown(note), '');
    for (const t of section.tables) out.push(renderTable(t));
  }
  out.push(
    '_Figures (score distributions, workflow lengths, co-occurrence and adjacency graphs) are in the HTML report: `agent-seer report --format html`._',
    '',
  );
  return out.join('\n');
}
