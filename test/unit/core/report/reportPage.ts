/**
 * Opening a rendered report page in headless Chromium (/usr/bin/chromium) with its console
 * errors and CSP violations recorded: shared by the report tests.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- browser globals inside page.evaluate callbacks (this file compiles without the DOM lib) */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from '../../fixturePaths';

declare const window: any;
declare const document: any;

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
let browser: Browser | undefined;

/** Builds dist/report.js when it is missing or older than its sources. */
export function ensureBundle(): void {
  const bundle = join(repoRoot, 'dist', 'report.js');
  const sources = ['media/report/report.ts', 'src/core/report/tables.ts', 'src/core/report/graphCap.ts', 'src/core/vocabulary.ts'].map((f) =>
    join(repoRoot, f),
  );
  const stale = !existsSync(bundle) || sources.some((f) => statSync(f).mtimeMs > statSync(bundle).mtimeMs);
  if (stale) execFileSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
}

export interface PageLog {
  errors: string[];
  violations: string[];
}

/** Opens a page with its console errors and CSP violations recorded (and alert() stubbed). */
export async function loadPage(html: string, file: string): Promise<{ page: Page; log: PageLog }> {
  writeFileSync(file, html);
  browser ??= await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const log: PageLog = { errors: [], violations: [] };
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') log.errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => log.errors.push(`pageerror: ${e.message}`));
  // Recorded from the page itself: alert() calls and CSP violations.
  await page.addInitScript(() => {
    const w = window as unknown as { __alerts: string[]; __csp: string[] };
    w.__alerts = [];
    w.__csp = [];
    window.alert = (m?: unknown) => void w.__alerts.push(String(m));
    document.addEventListener('securitypolicyviolation', (e: { violatedDirective: string; blockedURI: string }) =>
      w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await page.goto(`file://${file}`);
  return { page, log };
}

/** Waits until the page script says every chart is drawn, then collects the CSP violations so far. */
export async function whenDrawn(page: Page, log: PageLog): Promise<void> {
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, { timeout: 15_000 });
  log.violations.push(...(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)));
}

export async function openReport(html: string, file: string): Promise<{ page: Page; log: PageLog }> {
  const opened = await loadPage(html, file);
  await whenDrawn(opened.page, opened.log);
  return opened;
}

/** Per figure: whether it has a canvas and how many of its pixels are painted. */
export async function figures(page: Page): Promise<Record<string, { empty: boolean; painted: number }>> {
  return page.evaluate(() => {
    const out: Record<string, { empty: boolean; painted: number }> = {};
    for (const fig of Array.from<any>(document.querySelectorAll('figure[data-figure]'))) {
      const canvas = fig.querySelector('canvas');
      let painted = 0;
      if (canvas && canvas.width && canvas.height) {
        const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? new Uint8ClampedArray();
        for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) painted++;
      }
      out[fig.dataset.figure ?? ''] = { empty: fig.dataset.empty === 'true', painted };
    }
    return out;
  });
}

/** Closes the shared browser (in a test file's `after`). */
export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}
