/**
 * The report page's script (bundled by esbuild into `dist/report.js`, inlined into the HTML
 * report with the page's CSP nonce, or loaded from the extension in a webview).
 *
 * Security lines: the report model is read from the `<script type="application/json"
 * id="report-data">` block with `JSON.parse`, or in a webview (no data block) taken from a
 * `{type: 'report'}` message that passes `isReportMessage`; it is never code. Every piece of
 * text (server, tool, category, judge names: spec and LLM text) goes into the DOM with
 * `textContent` or onto a canvas with `fillText`; nothing is ever assigned to `innerHTML`. No
 * inline styles or event handler attributes are created, so a strict CSP (`default-src 'none'`,
 * nonce-only scripts and styles) holds.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartConfiguration,
  type Plugin,
} from 'chart.js';
import { EdgeLine, ForceDirectedGraphController } from 'chartjs-chart-graph';
import type {
  AgentScores,
  GraphEdge,
  JudgePair,
  LeaderboardRow,
  PairedAgreement,
  ReportModel,
  ServerReport,
  ServerStructure,
} from '../../src/core/report/schema';
import { capGraph, placeLabels, sharedPrefix, type LeftOutNode } from '../../src/core/report/graphCap';
import type { RangeCue } from '../../src/core/report/reference';
import { f3, headline, interval, label, reportTables, type ReportSection, type ReportTable } from '../../src/core/report/tables';
import { TC_DIMENSIONS } from '../../src/core/vocabulary';
import { isReportMessage, type ReportViewState, type ToExtension } from '../../src/core/report/protocol';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  Legend,
  Tooltip,
  ScatterController,
  LineController,
  PointElement,
  LineElement,
  ForceDirectedGraphController,
  EdgeLine,
);

/** Theme colours from CSS variables (a webview's --vscode-* colours win over the fallbacks). */
interface Theme {
  fg: string;
  muted: string;
  border: string;
  series: string[];
  good: string;
  warn: string;
  bad: string;
  font: string;
}

function readTheme(): Theme {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--fg', '#1f2328'),
    muted: v('--muted', '#59636e'),
    border: v('--border', '#d1d9e0'),
    series: [v('--c1', '#0969da'), v('--c2', '#bc4c00'), v('--c3', '#8250df'), v('--c4', '#1a7f37')],
    good: v('--good', '#1a7f37'),
    warn: v('--warn', '#9a6700'),
    bad: v('--bad', '#cf222e'),
    font: v('--font', 'system-ui, sans-serif'),
  };
}

/** Creates an element with optional class and text (text only ever through textContent). */
function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The symbol before a cued score: ▼ below, ● within, ▲ above the paper's range. */
const CUE_SYMBOLS: Record<RangeCue, string> = { below: '▼ ', within: '● ', above: '▲ ' };

function renderTable(t: ReportTable): HTMLElement {
  const wrap = el('section', 'table-block');
  wrap.id = `t-${t.id}`;
  wrap.append(el('h3', undefined, t.title), el('p', 'caption', t.caption));
  // reportTables keeps a table of no rows only when it says what that means.
  if (!t.rows.length) {
    wrap.append(el('p', 'empty', t.empty ?? 'No data.'));
    return wrap;
  }
  const scroller = el('div', 'table-scroll');
  const table = el('table');
  const head = el('tr');
  t.headers.forEach((h, i) => {
    const th = el('th', t.align[i] === 'right' ? 'num' : undefined, h);
    th.scope = 'col';
    head.append(th);
  });
  table.append(el('thead'), el('tbody'));
  table.tHead?.append(head);
  t.rows.forEach((row, r) => {
    const tr = el('tr');
    row.forEach((cell, i) => {
      const cue = t.cues?.[r]?.[i] ?? null;
      const classes = [t.align[i] === 'right' ? 'num' : '', cue ? `cue cue-${cue}` : ''].filter(Boolean).join(' ');
      const td = el('td', classes || undefined);
      const link = i === 0 ? t.links?.[r] : null;
      // Only a record file under records/: a hand-made model's href can be no other URL.
      const href = link && /^records\/[^/\\:]+\.json$/.test(link) ? link : null;
      if (href) {
        // A record file beside the report (relative href, opened by the browser, never fetched by the page).
        const a = el('a', undefined, cell);
        a.href = href;
        td.append(a);
      } else if (cue) {
        // The symbol is decoration; the cue's words are in the cell's text (colour is never the only cue).
        const mark = el('span', 'cue-mark', CUE_SYMBOLS[cue]);
        mark.setAttribute('aria-hidden', 'true');
        td.append(mark, document.createTextNode(cell));
      } else td.textContent = cell;
      tr.append(td);
    });
    table.tBodies[0]?.append(tr);
  });
  scroller.append(table);
  wrap.append(scroller);
  return wrap;
}

function renderSection(s: ReportSection): HTMLElement {
  const sec = el('section', 'report-section');
  sec.id = `s-${s.id}`;
  sec.append(el('h2', undefined, s.title));
  for (const note of s.notes ?? []) sec.append(el('p', 'note', note));
  for (const t of s.tables) sec.append(renderTable(t));
  return sec;
}

/** Charts drawn so far (for the ready signal and tests). */
const charts: Chart[] = [];

/** A figure: caption plus a sized canvas container. Returns the canvas. */
function figure(parent: HTMLElement, id: string, title: string, caption: string, tall = false): HTMLCanvasElement {
  const fig = el('figure', tall ? 'chart-figure tall' : 'chart-figure');
  fig.dataset.figure = id;
  const box = el('div', 'chart');
  const canvas = el('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${title}. ${caption}`);
  box.append(canvas);
  fig.append(el('h4', undefined, title), box, el('figcaption', undefined, caption));
  parent.append(fig);
  return canvas;
}

function noData(parent: HTMLElement, id: string, title: string, text: string): void {
  const fig = el('figure', 'chart-figure');
  fig.dataset.figure = id;
  fig.dataset.empty = 'true';
  fig.append(el('h4', undefined, title), el('p', 'empty', text));
  parent.append(fig);
}

const BIN_LABELS = Array.from({ length: 10 }, (_, i) => `${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}`);

function draw<T extends ChartConfiguration>(canvas: HTMLCanvasElement, config: T): void {
  charts.push(new Chart(canvas, config));
}

function histogram(parent: HTMLElement, id: string, title: string, bins: readonly number[], color: string, caption: string, theme: Theme): void {
  if (!bins.some((b) => b > 0)) {
    noData(parent, id, title, 'No scores from this judge.');
    return;
  }
  draw(figure(parent, id, title, caption), {
    type: 'bar',
    data: { labels: BIN_LABELS, datasets: [{ label: 'records', data: [...bins], backgroundColor: color, borderColor: color, borderWidth: 1 }] },
    options: {
      maintainAspectRatio: false,
      plugins: { legend: { display: false } },
      scales: {
        x: { title: { display: true, text: 'score', color: theme.muted }, grid: { display: false } },
        y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'records', color: theme.muted } },
      },
    },
  });
}

function failureRates(parent: HTMLElement, id: string, s: ServerReport, theme: Theme): void {
  const dims = TC_DIMENSIONS.filter((d) => s.dimensions[d].n > 0);
  if (!dims.length) {
    noData(parent, id, 'Dimension failure rates', 'No dimension scores from this judge.');
    return;
  }
  const share = (d: (typeof TC_DIMENSIONS)[number], k: 'perfect' | 'partial' | 'zero') => Math.round((s.dimensions[d][k] ?? 0) * 1000) / 10;
  draw(figure(parent, id, 'Dimension failure rates', 'Share of records scoring perfect (1), partial and zero per TC dimension (Table 4).'), {
    type: 'bar',
    data: {
      labels: dims.map((d) => `${label(d)} (n=${s.dimensions[d].n})`),
      datasets: [
        { label: 'Perfect', data: dims.map((d) => share(d, 'perfect')), backgroundColor: theme.good },
        { label: 'Partial', data: dims.map((d) => share(d, 'partial')), backgroundColor: theme.warn },
        { label: 'Zero', data: dims.map((d) => share(d, 'zero')), backgroundColor: theme.bad },
      ],
    },
    options: {
      indexAxis: 'y',
      maintainAspectRatio: false,
      scales: { x: { stacked: true, min: 0, max: 100, title: { display: true, text: '% of records', color: theme.muted } }, y: { stacked: true } },
    },
  });
}

function workflowLengths(parent: HTMLElement, id: string, st: ServerStructure, s: ServerReport | undefined, theme: Theme): void {
  if (!st.workflowLengths.length) {
    noData(parent, id, 'Workflow length', 'No records.');
    return;
  }
  const max = Math.max(...st.workflowLengths.map((w) => w.length));
  const counts = new Map(st.workflowLengths.map((w) => [w.length, w.records] as const));
  const lengths = Array.from({ length: max + 1 }, (_, i) => i).filter((i) => i > 0 || counts.has(0));
  draw(
    figure(
      parent,
      id,
      'Workflow length',
      `Records per number of expected calls (mean ${s?.meanWorkflowLength === null || s === undefined ? '—' : s.meanWorkflowLength.toFixed(1)}).`,
    ),
    {
      type: 'bar',
      data: { labels: lengths.map(String), datasets: [{ label: 'records', data: lengths.map((l) => counts.get(l) ?? 0), backgroundColor: theme.series[2] }] },
      options: {
        maintainAspectRatio: false,
        plugins: { legend: { display: false } },
        scales: {
          x: { title: { display: true, text: 'calls per record', color: theme.muted }, grid: { display: false } },
          y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'records', color: theme.muted } },
        },
      },
    },
  );
}

/**
 * Draws node names beside graph nodes (text on canvas: never markup), busiest first; a name that
 * would overlap one already drawn, or leave the chart, tries the other side, above and below and
 * is otherwise not drawn (its tooltip still names it): labels never overlap (`placeLabels`).
 */
function nodeLabels(theme: Theme, priority: readonly number[]): Plugin<'forceDirectedGraph'> {
  return {
    id: 'agentSeerNodeLabels',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      const names = (chart.data.labels ?? []) as string[];
      const meta = chart.getDatasetMeta(0);
      ctx.save();
      ctx.font = `11px ${theme.font}`;
      ctx.fillStyle = theme.fg;
      ctx.textBaseline = 'middle';
      const texts = names.map((n) => (n.length > 28 ? `${n.slice(0, 27)}…` : n));
      const candidates = priority.map((i) => {
        const { x, y } = (meta.data[i]?.getProps(['x', 'y'], true) ?? { x: 0, y: 0 }) as { x: number; y: number };
        return { index: i, x, y, width: ctx.measureText(texts[i] ?? '').width, height: 12 };
      });
      const area = { left: 0, top: 0, right: chart.width, bottom: chart.height };
      const radius = chart.data.datasets[0]?.pointRadius;
      const dots = meta.data.map((pt, i) => {
        const { x, y } = pt.getProps(['x', 'y'], true) as { x: number; y: number };
        return { x, y, r: (Array.isArray(radius) ? Number(radius[i]) : Number(radius)) || 3 };
      });
      for (const p of placeLabels(candidates, area, 7, dots)) ctx.fillText(texts[p.index] ?? '', p.x, p.y + p.height / 2);
      ctx.restore();
    },
  };
}

function graph(parent: HTMLElement, id: string, title: string, caption: string, edges: readonly GraphEdge[], directed: boolean, theme: Theme): void {
  // Self-loops (a tool called twice in a row) are in the data but cannot be drawn as lines.
  if (!edges.some((e) => e.source !== e.target)) {
    noData(parent, id, title, directed ? 'No transitions between different tools.' : 'No record uses two or more tools.');
    return;
  }
  // At most GRAPH_NODE_CAP tools, the busiest: the rest are listed in a table under the graph.
  const capped = capGraph(edges);
  const drawn = capped.edges;
  const nodes = capped.nodes;
  const index = new Map(nodes.map((n, i) => [n, i] as const));
  const degree = nodes.map((n) => capped.degree.get(n) ?? 0);
  const left = capped.leftOut.length;
  // A prefix every drawn name shares (an API's namespace) is said once in the caption, not on every label.
  const prefix = sharedPrefix(nodes);
  const fullCaption =
    (left
      ? `${caption} The ${nodes.length} tools of highest weight are drawn; ${left} more ${left === 1 ? 'is' : 'are'} left out and listed under the graph.`
      : caption) +
    `${prefix ? ` Names are shown without the prefix all of them share, "${prefix}".` : ''} Labels never overlap: where two would, the busier tool is named (hover a node for any name).`;
  // Labels busiest first: where two would overlap, the busier one is drawn.
  const priority = nodes.map((_, i) => i).sort((a, b) => (degree[b] ?? 0) - (degree[a] ?? 0) || a - b);
  const maxW = Math.max(1, ...drawn.map((e) => e.weight));
  const maxDeg = Math.max(...degree);
  const config: ChartConfiguration<'forceDirectedGraph'> = {
    type: 'forceDirectedGraph',
    data: {
      labels: nodes.map((n) => n.slice(prefix.length)),
      datasets: [
        {
          label: title,
          data: nodes.map(() => ({})),
          edges: drawn.map((e) => ({ source: index.get(e.source) ?? 0, target: index.get(e.target) ?? 0 })),
          pointRadius: nodes.map((_, i) => 3 + 5 * Math.sqrt((degree[i] ?? 0) / (maxDeg || 1))),
          pointBackgroundColor: directed ? theme.series[1] : theme.series[0],
          pointBorderColor: theme.fg,
          pointBorderWidth: 0.5,
          // Edges resolve `edgeLine*` then plain options; points read their own `point*` ones.
          borderColor: theme.muted,
          borderWidth: drawn.map((e) => 0.6 + 3 * (e.weight / maxW)),
          directed,
          arrowHeadSize: 7,
          arrowHeadOffset: 6,
        },
      ],
    },
    options: {
      maintainAspectRatio: false,
      layout: { padding: { left: 8, right: 120, top: 12, bottom: 12 } },
      scales: { x: { display: false, min: -1.1, max: 1.1 }, y: { display: false, min: -1.1, max: 1.1 } },
      plugins: {
        legend: { display: false },
        tooltip: { callbacks: { label: (ctx) => `${nodes[ctx.dataIndex] ?? ''} (weight ${degree[ctx.dataIndex] ?? 0})` } },
      },
      simulation: {
        initialIterations: 300,
        autoRestart: false,
        // Weak pulls to the centre keep disconnected components from drifting to the edges
        // (positions are rescaled to the chart box afterwards, which would squash the main one).
        forces: {
          center: true,
          collide: { radius: 14 },
          link: { distance: 45 },
          manyBody: { strength: -90 },
          x: { strength: 0.12 },
          y: { strength: 0.12 },
          radial: false,
        },
      },
    },
    plugins: [nodeLabels(theme, priority)],
  };
  const canvas = figure(parent, id, title, fullCaption, true);
  draw(canvas, config);
  if (left) canvas.closest('figure')?.append(leftOutTable(capped.leftOut, directed));
}

/** The tools a capped graph does not draw, folded under it. */
function leftOutTable(leftOut: readonly LeftOutNode[], directed: boolean): HTMLElement {
  const details = el('details', 'graph-left-out');
  details.append(el('summary', undefined, `${leftOut.length} ${leftOut.length === 1 ? 'tool' : 'tools'} not drawn`));
  const scroller = el('div', 'table-scroll');
  const table = el('table');
  const head = el('tr');
  for (const [h, num] of [
    ['tool', false],
    [directed ? 'transitions' : 'records', true],
    [directed ? 'edges' : 'partners', true],
  ] as const) {
    const th = el('th', num ? 'num' : undefined, h);
    th.scope = 'col';
    head.append(th);
  }
  table.append(el('thead'), el('tbody'));
  table.tHead?.append(head);
  for (const n of leftOut) {
    const tr = el('tr');
    tr.append(el('td', undefined, n.tool), el('td', 'num', String(n.degree)), el('td', 'num', String(n.edges)));
    table.tBodies[0]?.append(tr);
  }
  scroller.append(table);
  details.append(scroller);
  return details;
}

function agreementFigures(parent: HTMLElement, p: JudgePair, k: number, theme: Theme): void {
  const grid = el('div', 'figure-grid');
  const one = (a: PairedAgreement, what: string, key: string) => {
    if (a.n === 0) {
      noData(grid, `agreement-scatter-${key}-${k}`, `${what}: ${p.b} vs ${p.a}`, 'No records scored by both judges.');
      return;
    }
    draw(
      figure(
        grid,
        `agreement-scatter-${key}-${k}`,
        `${what}: ${p.b} vs ${p.a}`,
        `Each point is a record; the line is y = x. Pearson r ${f3(a.pearson.r)}, n = ${a.n}.`,
      ),
      {
        type: 'scatter',
        data: {
          datasets: [
            { label: 'records', data: a.points.map(([x, y]) => ({ x, y })), backgroundColor: theme.series[0], pointRadius: 3 },
            {
              type: 'line',
              label: 'y = x',
              data: [
                { x: 0, y: 0 },
                { x: 1, y: 1 },
              ],
              borderColor: theme.muted,
              borderDash: [4, 4],
              pointRadius: 0,
              borderWidth: 1,
            },
          ],
        },
        options: {
          maintainAspectRatio: false,
          plugins: { legend: { display: false } },
          scales: {
            x: { min: 0, max: 1, title: { display: true, text: p.a, color: theme.muted } },
            y: { min: 0, max: 1, title: { display: true, text: p.b, color: theme.muted } },
          },
        },
      },
    );
    const ba = a.blandAltman;
    const pts = a.points.map(([x, y]) => ({ x: (x + y) / 2, y: y - x }));
    const line = (y: number | null, name: string, color: string, dash: number[]) => ({
      type: 'line' as const,
      label: name,
      data:
        y === null
          ? []
          : [
              { x: 0, y },
              { x: 1, y },
            ],
      borderColor: color,
      borderDash: dash,
      pointRadius: 0,
      borderWidth: 1,
    });
    draw(
      figure(
        grid,
        `agreement-ba-${key}-${k}`,
        `${what}: Bland–Altman`,
        `Difference (${p.b} − ${p.a}) against the pair mean; bias ${f3(ba.meanDiff)}, limits of agreement ${ba.lower === null || ba.upper === null ? '—' : `[${ba.lower.toFixed(3)}, ${ba.upper.toFixed(3)}]`}.`,
      ),
      {
        type: 'scatter',
        data: {
          datasets: [
            { label: 'records', data: pts, backgroundColor: theme.series[1], pointRadius: 3 },
            line(ba.meanDiff, 'bias', theme.fg, []),
            line(ba.lower, 'lower limit', theme.muted, [4, 4]),
            line(ba.upper, 'upper limit', theme.muted, [4, 4]),
          ],
        },
        options: {
          maintainAspectRatio: false,
          plugins: { legend: { display: false } },
          scales: {
            x: { min: 0, max: 1, title: { display: true, text: 'mean of the two judges', color: theme.muted } },
            y: { title: { display: true, text: 'difference', color: theme.muted } },
          },
        },
      },
    );
  };
  one(p.tc, 'Tool calling', 'tc');
  one(p.coh, 'Coherence', 'coh');
  parent.append(grid);
}

/** The leaderboard's scores drawn as bars, in the order of its table. */
const LEADERBOARD_DIMENSIONS: readonly { key: 'callScore' | 'exactCallMatch' | 'nameMatch' | 'argumentAccuracy' | 'tc' | 'coh'; label: string }[] = [
  { key: 'callScore', label: 'Call score' },
  { key: 'exactCallMatch', label: 'Exact call match' },
  { key: 'argumentAccuracy', label: 'Argument accuracy' },
  { key: 'nameMatch', label: 'Name match' },
  { key: 'tc', label: 'TC (judge)' },
  { key: 'coh', label: 'Coh (judge)' },
];

/** A bar dataset carrying the confidence interval of each bar (null where there is none). */
type CiDataset = { ci: ([number, number] | null)[] };

/**
 * Draws each bar's confidence interval as a whisker (chart.js has no error bars), and counts the
 * whiskers drawn on the figure (`data-whiskers`), so a test can tell they are there.
 */
const ciWhiskers: Plugin<'bar'> = {
  id: 'ciWhiskers',
  afterDatasetsDraw(chart) {
    const ctx = chart.ctx;
    const y = chart.scales.y;
    if (!y) return;
    let drawn = 0;
    ctx.save();
    ctx.strokeStyle = String(Chart.defaults.color);
    ctx.lineWidth = 1.5;
    chart.data.datasets.forEach((ds, i) => {
      const meta = chart.getDatasetMeta(i);
      if (meta.hidden) return;
      (ds as unknown as CiDataset).ci.forEach((ci, j) => {
        const bar = meta.data[j] as unknown as { x: number; width: number } | undefined;
        if (!ci || !bar) return;
        const [lo, hi] = [y.getPixelForValue(ci[0]), y.getPixelForValue(ci[1])];
        const cap = Math.min(6, bar.width / 4);
        ctx.beginPath();
        ctx.moveTo(bar.x, lo);
        ctx.lineTo(bar.x, hi);
        ctx.moveTo(bar.x - cap, lo);
        ctx.lineTo(bar.x + cap, lo);
        ctx.moveTo(bar.x - cap, hi);
        ctx.lineTo(bar.x + cap, hi);
        ctx.stroke();
        drawn++;
      });
    });
    ctx.restore();
    const fig = chart.canvas.closest('figure');
    if (fig) fig.dataset.whiskers = String(drawn);
  },
};

/** The leaderboard as a figure: agents × scores, bars at the mean, whiskers at the bootstrap CI. */
function leaderboardFigure(parent: HTMLElement, rows: readonly LeaderboardRow[], level: number, theme: Theme): void {
  const grid = el('div', 'figure-grid wide');
  if (!rows.length) {
    noData(grid, 'leaderboard-chart', 'Agents by score', 'No agent runs.');
    parent.append(grid);
    return;
  }
  // The judge's scores only when some agent was judged (`run --judge`).
  const dims = LEADERBOARD_DIMENSIONS.filter((d) => (d.key !== 'tc' && d.key !== 'coh') || rows.some((r) => r.overall[d.key].n > 0));
  const summary = (s: AgentScores, key: (typeof dims)[number]['key']) => s[key];
  const datasets = rows.map((r, i) => {
    const color = theme.series[i % theme.series.length] ?? theme.fg;
    return {
      label: r.agent,
      data: dims.map((d) => summary(r.overall, d.key).mean),
      ci: dims.map((d) => summary(r.overall, d.key).ci),
      backgroundColor: color,
      borderColor: color,
      borderWidth: 1,
    };
  });
  draw(
    figure(
      grid,
      'leaderboard-chart',
      'Agents by score',
      `Each agent's mean per scenario over its runs; whiskers are ${Math.round(level * 100)}% bootstrap CIs over scenarios. No bar: not scored (no judge ran).`,
    ),
    {
      type: 'bar',
      data: { labels: dims.map((d) => d.label), datasets },
      options: {
        maintainAspectRatio: false,
        scales: { y: { min: 0, max: 1, title: { display: true, text: 'score', color: theme.muted } }, x: { grid: { display: false } } },
      },
      plugins: [ciWhiskers],
    },
  );
  parent.append(grid);
}

/** Builds the whole report into `root` from a model. */
export function renderReport(root: HTMLElement, model: ReportModel): void {
  const theme = readTheme();
  Chart.defaults.color = theme.fg;
  Chart.defaults.borderColor = theme.border;
  Chart.defaults.font.family = theme.font;
  Chart.defaults.animation = false;
  root.replaceChildren();

  const header = el('header', 'report-header');
  header.append(el('h1', undefined, 'Agent Seer report'));
  const judges = model.judges.map((j) => j.judge ?? '(no judgments)');
  header.append(
    el(
      'p',
      'meta',
      `Servers: ${model.structure.map((s) => s.name).join(', ') || '(none)'} · Judges: ${judges.join(', ')} · ${Math.round(model.settings.level * 100)}% percentile bootstrap, B = ${model.settings.resamples}, seed ${model.settings.seed}`,
    ),
  );
  // The primary judge's figures per server, as the Markdown opens: an exact score is followed by what it covers.
  const lines = headline(model);
  if (lines.length) {
    const ul = el('ul', 'headline');
    for (const line of lines) ul.append(el('li', undefined, line));
    header.append(ul);
  }
  root.append(header);

  if (model.warnings.length) {
    const w = el('section', 'warnings');
    w.append(el('h2', undefined, 'Warnings'));
    const ul = el('ul');
    for (const text of model.warnings) ul.append(el('li', undefined, text));
    w.append(ul);
    root.append(w);
  }

  const sections = reportTables(model);
  const nav = el('nav', 'toc');
  const navList = el('ul');
  const link = (id: string, text: string) => {
    const li = el('li');
    const a = el('a', undefined, text);
    a.href = `#${id}`;
    li.append(a);
    navList.append(li);
  };
  // The worst scenarios open the page (what to fix), then what changed since a previous report
  // (`report --previous`), before the figures; the rest follow them.
  const opening = sections.filter((s) => s.id === 'worst' || s.id === 'since');
  const rest = sections.filter((s) => !opening.includes(s));
  for (const s of opening) link(`s-${s.id}`, s.title);
  link('s-figures', 'Figures');
  for (const s of rest) link(`s-${s.id}`, s.title);
  nav.append(navList);
  root.append(nav);
  for (const s of opening) root.append(renderSection(s));

  // Figures: corpus distributions and failure rates under the primary judge, then per server;
  // a score the judge never gave has no figure (the offline judge's exact score is no TC).
  const primary = model.judges[0];
  const gaveTc = (primary?.corpus.tc.n ?? 0) > 0;
  const gaveCoh = (primary?.corpus.coh.n ?? 0) > 0;
  const figs = el('section', 'report-section');
  figs.id = 's-figures';
  figs.append(el('h2', undefined, primary?.judge && (gaveTc || gaveCoh) ? `Figures — judge ${primary.judge}` : 'Figures'));
  if (primary && (gaveTc || gaveCoh)) {
    const grid = el('div', 'figure-grid');
    const c = primary.corpus;
    if (gaveTc)
      histogram(
        grid,
        'tc-hist',
        'Tool-calling scores',
        c.histograms.tc,
        theme.series[0] ?? '#0969da',
        `All records (n = ${c.tc.n}); mean ${f3(c.tc.mean)} ${interval(c.tc.ci)}.`,
        theme,
      );
    if (gaveCoh)
      histogram(
        grid,
        'coh-hist',
        'Coherence scores',
        c.histograms.coh,
        theme.series[1] ?? '#bc4c00',
        `All records (n = ${c.coh.n}); mean ${f3(c.coh.mean)} ${interval(c.coh.ci)}.`,
        theme,
      );
    if (gaveTc) failureRates(grid, 'failure-rates', c, theme);
    figs.append(grid);
  }
  model.structure.forEach((st, i) => {
    const s = primary?.servers[i];
    const block = el('section', 'server-figures');
    block.append(el('h3', undefined, st.name));
    const grid = el('div', 'figure-grid');
    if (s && model.structure.length > 1) {
      if (gaveTc)
        histogram(grid, `tc-hist-${i}`, 'Tool-calling scores', s.histograms.tc, theme.series[0] ?? '#0969da', `n = ${s.tc.n}; mean ${f3(s.tc.mean)}.`, theme);
      if (gaveCoh)
        histogram(grid, `coh-hist-${i}`, 'Coherence scores', s.histograms.coh, theme.series[1] ?? '#bc4c00', `n = ${s.coh.n}; mean ${f3(s.coh.mean)}.`, theme);
    }
    workflowLengths(grid, `workflow-${i}`, st, s, theme);
    block.append(grid);
    const graphs = el('div', 'figure-grid wide');
    graph(
      graphs,
      `cooccurrence-${i}`,
      'Tool co-occurrence',
      `Tools in the same record (undirected; line width = records). ${st.cooccurrence.length} pairs from ${st.multiToolRecords} multi-tool records.`,
      st.cooccurrence,
      false,
      theme,
    );
    graph(
      graphs,
      `adjacency-${i}`,
      'Sequential adjacency',
      `Tool A immediately followed by tool B in a workflow (directed; line width = transitions).`,
      st.adjacency,
      true,
      theme,
    );
    block.append(graphs);
    figs.append(block);
  });
  root.append(figs);

  const agreementById = new Map<string, { p: JudgePair; k: number }>(model.agreement.map((p, k) => [`agreement-${k}`, { p, k }]));
  for (const s of rest) {
    if (!s) continue;
    const node = renderSection(s);
    const a = agreementById.get(s.id);
    if (a) agreementFigures(node, a.p, a.k, theme);
    if (s.id === 'leaderboard') leaderboardFigure(node, model.leaderboard, model.settings.level, theme);
    root.append(node);
  }
}

/** The webview API, present only inside VS Code. */
declare function acquireVsCodeApi(): { postMessage(message: ToExtension): void; setState(state: ReportViewState): void } | undefined;

function show(root: HTMLElement, model: ReportModel): void {
  charts.splice(0).forEach((c) => c.destroy());
  delete document.documentElement.dataset.ready;
  try {
    renderReport(root, model);
  } catch (e) {
    // A model that passed the message guard but not the schema: say so instead of a blank page.
    root.replaceChildren(el('p', 'empty', `The report could not be drawn: ${e instanceof Error ? e.message : String(e)}`));
  }
  // Graph layouts draw on the next frame; signal readiness after it.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      document.documentElement.dataset.charts = String(charts.length);
      document.documentElement.dataset.ready = 'true';
    }),
  );
}

function boot(): void {
  const root = document.getElementById('report');
  if (!root) return;
  const data = document.getElementById('report-data');
  if (data) {
    show(root, JSON.parse(data.textContent ?? 'null') as ReportModel);
    return;
  }
  // In a webview the model arrives by message, after we say we are listening.
  const vscode = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    if (!isReportMessage(event.data)) return;
    show(root, event.data.model);
    // Remember what the report is of, so VS Code can restore this panel after a reload.
    if (event.data.sources) vscode?.setState({ sources: event.data.sources });
  });
  vscode?.postMessage({ type: 'ready' });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
else boot();
