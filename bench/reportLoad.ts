/**
 * How long the HTML report takes to open as the spec grows: offline harnesses of synthetic specs
 * (`test/unit/scaleSpec.ts`, AGENT_SEER_BENCH_REPORT_TOOLS ["235,1500"] tools), each judged
 * offline and rendered by `agent-seer report --format html`, opened in headless Chromium
 * (/usr/bin/chromium, as the report tests do) until the page says every chart is drawn. Reported:
 * the page's own clock at that moment (ms since navigation), the median of
 * AGENT_SEER_BENCH_REPORT_RUNS [5] loads, for each size and for a trivial page; the figure of
 * merit is largest ÷ smallest, bound 2 (issue 25: 6.4× a trivial page before the graphs were
 * capped, see src/core/report/graphCap.ts).
 *
 * `npm run build && npm run compile-tests && node out/bench/reportLoad.js`; not part of
 * `npm run bench` (it needs Chromium). AGENT_SEER_BENCH_REPORT_SCRIPT=<another build's report.js>
 * puts that page script into the same reports in place of dist/report.js (a before/after).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Io } from '../src/cli/errors';
import { run } from '../src/cli/main';
import type { BenchResult } from './foundation';
import { repoRoot } from '../test/unit/fixturePaths';
import { closeBrowser, ensureBundle, loadPage, whenDrawn } from '../test/unit/core/report/reportPage';
import { scaleSpec } from '../test/unit/scaleSpec';

/** Largest accepted ratio of load times, largest spec ÷ smallest. */
export const REPORT_LOAD_RATIO_BOUND = 2;

async function cli(argv: string[], cwd: string): Promise<void> {
  const err: string[] = [];
  const io: Io = { out: () => undefined, err: (s) => err.push(s), cwd, env: {} };
  const code = await run(argv, io);
  if (code !== 0) throw new Error(`agent-seer ${argv.join(' ')}: exit ${code}\n${err.join('\n')}`);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Milliseconds from navigation until the page's ready signal, by the page's clock. */
async function loadMs(html: string, file: string): Promise<number> {
  const { page, log } = await loadPage(html, file);
  try {
    await whenDrawn(page, log);
    if (log.errors.length) throw new Error(`the page logged: ${log.errors.join('; ')}`);
    return await page.evaluate(() => performance.now());
  } finally {
    await page.close();
  }
}

declare const performance: { now(): number };

export async function runReportLoadBench(): Promise<BenchResult[]> {
  ensureBundle();
  const sizes = (process.env.AGENT_SEER_BENCH_REPORT_TOOLS ?? '235,1500').split(',').map((s) => Number(s.trim()));
  const runs = Number(process.env.AGENT_SEER_BENCH_REPORT_RUNS ?? '5');
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-bench-report-'));
  try {
    const pages: { label: string; file: string; html: string; note: string }[] = [];
    const trivial =
      '<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body><p>trivial</p><script>document.documentElement.dataset.ready = "true"</script></body></html>';
    pages.push({ label: 'a trivial page', file: join(dir, 'trivial.html'), html: trivial, note: '' });
    for (const n of sizes) {
      const spec = join(dir, `s${n}.json`);
      writeFileSync(spec, JSON.stringify(scaleSpec(n)));
      const h = join(dir, `h${n}`);
      await cli(['generate', spec, '--out', h], dir);
      await cli(['judge', h], dir);
      const out = join(dir, `r${n}.html`);
      await cli(['report', h, '--format', 'html', '--out', out], dir);
      let html = readFileSync(out, 'utf8');
      const other = process.env.AGENT_SEER_BENCH_REPORT_SCRIPT;
      if (other) {
        const ours = readFileSync(join(repoRoot, 'dist', 'report.js'), 'utf8').trim();
        if (!html.includes(ours)) throw new Error('the report does not inline dist/report.js as it is: cannot swap the page script');
        html = html.split(ours).join(readFileSync(other, 'utf8').trim());
      }
      const model = /<script[^>]*id="report-data"[^>]*>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
      const co = (model.match(/"source":/g) ?? []).length;
      pages.push({
        label: `${n} tools`,
        file: join(dir, `load-${n}.html`),
        html,
        note: `${(statSync(out).size / 1024).toFixed(0)} KB of HTML, ${co} graph edges in its data`,
      });
    }
    const times = new Map<string, number[]>(pages.map((p) => [p.label, []]));
    // Alternate the pages so machine load falls on each alike.
    for (let i = 0; i < runs; i++) for (const p of pages) times.get(p.label)?.push(await loadMs(p.html, p.file));
    const results: BenchResult[] = pages.map((p) => ({
      name: `HTML report opened in Chromium: ${p.label}`,
      value: median(times.get(p.label) ?? []),
      unit: 'ms',
      note: `median of ${runs}${p.note ? `; ${p.note}` : ''}`,
    }));
    const small = results[1];
    const large = results[results.length - 1];
    if (small && large && small !== large) {
      const ratio = large.value / small.value;
      results.push({
        name: `HTML report load: ${sizes[sizes.length - 1]} ÷ ${sizes[0]} tools`,
        value: ratio,
        unit: '×',
        ratio,
        baseline: small.value,
        bound: REPORT_LOAD_RATIO_BOUND,
        note: `bound ${REPORT_LOAD_RATIO_BOUND} (${ratio <= REPORT_LOAD_RATIO_BOUND ? 'within' : 'OVER'}); ${(large.value / (results[0]?.value ?? 1)).toFixed(1)}× the trivial page`,
      });
    }
    return results;
  } finally {
    await closeBrowser();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void runReportLoadBench()
    .then((results) => {
      for (const r of results) process.stdout.write(`${r.name}: ${r.value.toFixed(2)} ${r.unit}${r.note ? `  — ${r.note}` : ''}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
