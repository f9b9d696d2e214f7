/**
 * The scenario panel's page script (bundled by esbuild into `dist/scenario.js`, loaded by the
 * webview under a nonce CSP). It draws the view model the extension posts after the page says
 * `ready`.
 *
 * Security lines: every piece of data (spec text, LLM text, tool names, arguments, outputs) goes
 * into the DOM with `textContent` or as an attribute value set through the DOM; nothing is ever
 * assigned to `innerHTML`, and no inline styles or handler attributes are created, so the strict
 * CSP holds and a prompt holding `<img onerror=…>` or `<script>` stays text.
 */
import { isScenarioMessage, type ScenarioToExtension, type ScenarioViewState } from '../../src/core/report/scenarioProtocol';
import type { ScenarioCall, ScenarioFinding, ScenarioJudgment, ScenarioViewModel, ScoreRow } from '../../src/core/report/scenarioView';

interface VsCodeApi {
  postMessage(message: ScenarioToExtension): void;
  setState(state: ScenarioViewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('root') as HTMLElement;

/** An element with a class and optional text (always as text). */
function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function section(title: string, id: string): HTMLElement {
  const s = el('section');
  s.setAttribute('aria-labelledby', id);
  const h = el('h2', undefined, title);
  h.id = id;
  s.append(h);
  return s;
}

const pct = (v: number | null): string => (v === null ? '–' : v.toFixed(2));

/** JSON as a collapsible tree: objects and arrays are `<details>` (keyboard: Tab to the summary, Enter/Space toggles). */
function jsonTree(value: unknown, key?: string, open = true): HTMLElement {
  const keyEl = (): HTMLElement[] => (key === undefined ? [] : [el('span', 'j-key', JSON.stringify(key)), el('span', 'j-punct', ': ')]);
  if (value !== null && typeof value === 'object') {
    const entries: [string | undefined, unknown][] = Array.isArray(value) ? value.map((v) => [undefined, v]) : Object.entries(value);
    const [openB, closeB] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (!entries.length) {
      const line = el('div', 'j-line');
      line.append(...keyEl(), el('span', 'j-punct', `${openB}${closeB}`));
      return line;
    }
    const d = el('details', 'j-node');
    d.open = open;
    const summary = el('summary');
    const noun = Array.isArray(value) ? 'item' : 'key';
    summary.append(...keyEl(), el('span', 'j-punct', openB), el('span', 'j-count', ` ${entries.length} ${noun}${entries.length === 1 ? '' : 's'} `));
    d.append(summary);
    const body = el('div', 'j-body');
    for (const [k, v] of entries) body.append(jsonTree(v, k, true));
    d.append(body, el('div', 'j-punct', closeB));
    return d;
  }
  const line = el('div', 'j-line');
  const cls =
    value === null
      ? 'j-null'
      : typeof value === 'string'
        ? 'j-string'
        : typeof value === 'number'
          ? 'j-number'
          : typeof value === 'boolean'
            ? 'j-bool'
            : 'j-null';
  line.append(...keyEl(), el('span', cls, value === undefined ? 'undefined' : JSON.stringify(value)));
  return line;
}

function button(label: string, onClick: () => void, aria?: string): HTMLButtonElement {
  const b = el('button', undefined, label);
  b.type = 'button';
  if (aria) b.setAttribute('aria-label', aria);
  b.addEventListener('click', onClick);
  return b;
}

function finding(f: ScenarioFinding): HTMLElement {
  const li = el('li', f.waived ? 'finding waived' : f.score <= 0.3 ? 'finding bad' : 'finding warn');
  const where = f.param ? `${f.param}: ` : '';
  li.append(
    el('strong', undefined, `${where}${f.label} ${f.score.toFixed(2)}`),
    el('span', undefined, ` ${f.reason}`),
    el('span', 'muted', ` (${f.judge}, ${f.source})`),
  );
  if (f.waived) li.append(el('span', 'muted', ` waived: ${f.waived}`));
  return li;
}

function callBlock(c: ScenarioCall): HTMLElement {
  const box = el('article', 'call');
  box.id = `call-${c.index}`;
  const head = el('div', 'call-head');
  head.append(
    el('h3', undefined, `Call ${c.index + 1}: ${c.name}`),
    button('Open JSON', () => vscode.postMessage({ type: 'openJson', call: c.index }), `Open the record JSON at call ${c.index + 1}`),
  );
  box.append(head);
  if (c.explanation) box.append(el('p', 'muted', c.explanation));
  const pair = el('div', 'pair');
  const args = el('div', 'side');
  args.append(el('h4', undefined, 'Arguments'), jsonTree(c.arguments));
  const out = el('div', 'side');
  out.append(el('h4', undefined, `Mock output${c.grounding ? ` (grounding: ${c.grounding})` : ''}`), jsonTree(c.output));
  pair.append(args, out);
  box.append(pair);
  if (c.errors.length) {
    const ul = el('ul', 'errors');
    for (const e of c.errors) ul.append(el('li', 'finding bad', e));
    box.append(ul);
  }
  if (c.findings.length) {
    const ul = el('ul', 'findings');
    for (const f of c.findings) ul.append(finding(f));
    box.append(ul);
  }
  return box;
}

function scoreTable(caption: string, rows: ScoreRow[]): HTMLElement {
  const t = el('table');
  t.append(el('caption', undefined, caption));
  for (const r of rows) {
    const tr = el('tr');
    tr.append(el('th', undefined, r.label), el('td', r.value !== null && r.value < 0.9 ? 'low' : undefined, pct(r.value)));
    t.append(tr);
  }
  return t;
}

function judgmentBlock(j: ScenarioJudgment): HTMLElement {
  const box = el('article', 'judgment');
  box.append(
    el('h3', undefined, `${j.judge}${j.stale ? ' (stale: the record or spec changed since)' : ''}`),
    el('p', undefined, `TC ${pct(j.tc)} · Coh ${pct(j.coh)} · exact ${pct(j.exact)} · ${j.mode}`),
  );
  const tables = el('div', 'pair');
  tables.append(scoreTable('Dimensions', j.dimensions), scoreTable('Argument sub-dimensions', j.argumentSubs));
  box.append(tables);
  const list = (title: string, items: string[]): void => {
    if (!items.length) return;
    box.append(el('h4', undefined, title));
    const ul = el('ul');
    for (const i of items) ul.append(el('li', undefined, i));
    box.append(ul);
  };
  list('Cascades', j.cascades);
  if (j.findings.length) {
    box.append(el('h4', undefined, 'Findings about the turn'));
    const ul = el('ul');
    for (const f of j.findings) ul.append(finding(f));
    box.append(ul);
  }
  list('Notes', j.notes);
  return box;
}

const STATE_WORDS: Record<ScenarioViewModel['state'], string> = { fail: 'Failed', pass: 'Passed', stale: 'Stale', 'not-judged': 'Not judged' };

function draw(m: ScenarioViewModel): void {
  root.replaceChildren();
  const nav = el('nav');
  nav.setAttribute('aria-label', 'Scenarios');
  const prev = button('← Previous', () => vscode.postMessage({ type: 'navigate', to: 'previous' }), 'Previous scenario (Alt+Left)');
  prev.disabled = m.position.previous === null;
  const next = button('Next →', () => vscode.postMessage({ type: 'navigate', to: 'next' }), 'Next scenario (Alt+Right)');
  next.disabled = m.position.next === null;
  nav.append(
    prev,
    el('span', 'muted', `${m.position.index + 1} of ${m.position.total}`),
    next,
    button('Open JSON', () => vscode.postMessage({ type: 'openJson', call: null })),
  );
  const title = el('h1', undefined, m.title);
  title.id = 'title';
  const badge = el('p', `state state-${m.state}`, `${STATE_WORDS[m.state]}${m.scoreLabel ? ` · ${m.scoreLabel}` : ''}`);
  badge.setAttribute('role', 'status');
  const meta = el('p', 'muted', `${m.tier} · ${m.category} · ${m.id}`);
  root.append(nav, title, badge, meta);
  if (m.failures.length) {
    const ul = el('ul', 'errors');
    ul.setAttribute('aria-label', 'Why it fails');
    for (const f of m.failures) ul.append(el('li', 'finding bad', f));
    root.append(ul);
  }

  const conv = section(m.turns.length > 1 ? 'Conversation' : 'Task', 'conv');
  if (m.turns.length > 1) {
    // A multi-turn record also has the whole task in one message: what an agent gets in single-turn mode.
    conv.append(el('h3', undefined, 'Single-turn task'), el('p', 'user', m.prompt));
  }
  for (const t of m.turns) {
    const turn = el('div', 'turn');
    turn.append(el('h3', undefined, m.turns.length > 1 ? `Turn ${t.index + 1}` : 'User'), el('p', 'user', t.prompt));
    for (const ci of t.calls) {
      const c = m.calls[ci];
      if (c) turn.append(callBlock(c));
    }
    turn.append(el('h4', undefined, m.turns.length > 1 ? 'Agent reply' : 'Expected response'), el('p', 'reply', t.followup));
    conv.append(turn);
  }
  const placed = new Set(m.turns.flatMap((t) => t.calls));
  for (const c of m.calls) if (!placed.has(c.index)) conv.append(callBlock(c));
  root.append(conv);

  if (m.turns.length > 1) {
    const exp = section('Expected response', 'expected');
    exp.append(el('p', 'reply', m.expectedResponse));
    root.append(exp);
  }

  const checks = section('Exact checks', 'checks');
  const ul = el('ul', 'checks');
  for (const c of m.checks) {
    const li = el('li', c.ok === false ? 'finding bad' : undefined);
    li.append(
      el('span', 'mark', c.ok === null ? '–' : c.ok ? '✓' : '✗'),
      el('span', undefined, ` ${c.label}`),
      el('span', 'muted', c.detail ? ` (${c.detail})` : ''),
    );
    ul.append(li);
  }
  checks.append(ul);
  root.append(checks);

  const judged = section('Judgments', 'judgments');
  if (!m.judgments.length) judged.append(el('p', 'muted', 'Not judged yet: run Judge on this scenario.'));
  for (const j of m.judgments) judged.append(judgmentBlock(j));
  root.append(judged);

  if (m.runs.length) {
    const runs = section('Agent runs', 'runs');
    for (const r of m.runs) {
      const box = el('article', 'run');
      const verdict =
        r.passed === null ? '' : r.passed ? ' · passed' : ` · failed (call score ${pct(r.callScore)} · exact call match ${pct(r.exactCallMatch)})`;
      box.append(el('h3', undefined, `${r.agent} run ${r.run}${verdict}`));
      const calls = el('ol');
      for (const c of r.calls) {
        const li = el('li');
        li.append(el('code', undefined, c.name), jsonTree(c.arguments, undefined, false));
        if (c.error) li.append(el('span', 'finding bad', c.error));
        calls.append(li);
      }
      box.append(calls);
      for (const reply of r.replies) box.append(el('p', 'reply', reply));
      runs.append(box);
    }
    root.append(runs);
  }
  document.title = m.title;
  vscode.setState({ harnessDir: m.harnessDir, id: m.id });
  // Read back what the browser drew (a test proves that data stayed text).
  vscode.postMessage({
    type: 'rendered',
    id: m.id,
    title: title.textContent ?? '',
    images: root.querySelectorAll('img').length,
    scripts: root.querySelectorAll('script').length,
    callPairs: root.querySelectorAll('.call .pair').length,
  });
}

window.addEventListener('message', (e: MessageEvent<unknown>) => {
  if (isScenarioMessage(e.data)) draw(e.data.model);
});
window.addEventListener('keydown', (e) => {
  if (!e.altKey) return;
  if (e.key === 'ArrowLeft') vscode.postMessage({ type: 'navigate', to: 'previous' });
  else if (e.key === 'ArrowRight') vscode.postMessage({ type: 'navigate', to: 'next' });
});
vscode.postMessage({ type: 'ready' });
