#!/usr/bin/env node
// Runs the integration suites inside a REAL VS Code extension host: code-server (installed by
// scripts/install-test-host.sh, outside the clone) driven by headless Chromium through
// playwright-core. See shared/design/VSCODE-TESTING.md.
//
//   npm run test:integration                # all suites
//   npm run test:integration -- main        # only the named suite(s)
//
// Environment:
//   AGENT_SEER_TEST_HOST           cache folder of the test host (default ~/.cache/agent-seer-test-host)
//   AGENT_SEER_SKIP_HOST_INSTALL=1 don't run the install script (host.json must exist)
//   AGENT_SEER_SUITE_TIMEOUT_MS    bound per suite (default 300000)
//   AGENT_SEER_KEEP_RUNS=1         keep each run folder whole (default: kept whole only on failure)
//   AGENT_SEER_TEST_GREP           only tests whose full title matches (passed to mocha)
//   CHROMIUM_PATH                  browser binary (default from host.json, else /usr/bin/chromium)
//
// Assumes `npm run build` and `npm run compile-tests` ran. Prints one line per test and closes
// with `N passed, N failed`; exits non-zero on any failure, a missing results file or a timeout.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { packageVsix } from './package.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(repoRoot, 'package.json'));

/**
 * The suites. `workspace` is a folder under test/integration/workspaces/ (copied to a temp dir
 * per run); `suite` the compiled suite index; `trust: true` runs WITHOUT
 * --disable-workspace-trust so the workspace opens untrusted. `installVsix`: package the extension
 * (scripts/package.mjs) and install the .vsix into the run's extensions dir with code-server's
 * --install-extension; `developmentPath` replaces the clone as the development extension. `extensions`: test-only helper
 * extensions (folders under test/integration/extensions/) copied into the run's extensions dir
 * (the web workbench keeps only one extensionDevelopmentPath); fake-lm registers a fake chat model.
 */
const SUITES = [
  { name: 'main', workspace: 'basic', suite: 'out/test/integration/suites/main/index.js', trust: false, extensions: ['fake-lm'] },
  { name: 'trust', workspace: 'untrusted', suite: 'out/test/integration/suites/trust/index.js', trust: true },
  // The extension as a user gets it: `npm run package`'s .vsix installed with --install-extension;
  // the development path is an empty helper, so the host loads the installed copy, not the clone.
  {
    name: 'vsix',
    workspace: 'basic',
    suite: 'out/test/integration/suites/vsix/index.js',
    trust: false,
    installVsix: true,
    developmentPath: 'test/integration/extensions/vsix-runner',
  },
];

const SUITE_TIMEOUT_MS = Number(process.env.AGENT_SEER_SUITE_TIMEOUT_MS) || 5 * 60_000;
const KEEP_RUNS = process.env.AGENT_SEER_KEEP_RUNS === '1';
const hostDir = process.env.AGENT_SEER_TEST_HOST ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'agent-seer-test-host');

const log = (msg) => console.log(`[integration] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: repoRoot, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

/** Newest mtime of the files under dir whose name matches. */
function newest(dir, re) {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && re.test(e.name)) t = Math.max(t, statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return t;
}

function ensureHost() {
  if (process.env.AGENT_SEER_SKIP_HOST_INSTALL !== '1') {
    run('bash', [join(repoRoot, 'scripts', 'install-test-host.sh')]);
  }
  const file = join(hostDir, 'host.json');
  if (!existsSync(file)) throw new Error(`${file} missing: run bash scripts/install-test-host.sh`);
  const host = JSON.parse(readFileSync(file, 'utf8'));
  host.chromium = process.env.CHROMIUM_PATH ?? host.chromium ?? '/usr/bin/chromium';
  for (const k of ['node', 'codeServerEntry', 'chromium']) {
    if (!existsSync(host[k])) throw new Error(`test host ${k} not found: ${host[k]} (re-run scripts/install-test-host.sh)`);
  }
  return host;
}

/** Compiled tests whose TypeScript source was deleted would still run: remove them. */
function removeOrphans() {
  const outDir = join(repoRoot, 'out', 'test', 'integration');
  if (!existsSync(outDir)) return;
  for (const e of readdirSync(outDir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !e.name.endsWith('.js')) continue;
    const file = join(e.parentPath ?? e.path, e.name);
    const source = join(repoRoot, 'test', 'integration', relative(outDir, file)).replace(/\.js$/, '.ts');
    if (!existsSync(source)) {
      log(`removing ${relative(repoRoot, file)} (its source is gone)`);
      rmSync(file, { force: true });
      rmSync(`${file}.map`, { force: true });
    }
  }
}

function ensureCompiled(suites) {
  const main = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).main ?? './dist/extension.js';
  if (!existsSync(join(repoRoot, main))) {
    log(`${main} missing: running npm run build`);
    run('npm', ['run', 'build']);
  } else if (newest(join(repoRoot, 'src'), /\.ts$/) > statSync(join(repoRoot, main)).mtimeMs) {
    log(`warning: ${main} is older than src/ — run npm run build to test the current code`);
  }
  const missing = suites.some((s) => !existsSync(join(repoRoot, s.suite)));
  const stale = newest(join(repoRoot, 'test', 'integration'), /\.ts$/) > newest(join(repoRoot, 'out', 'test', 'integration'), /\.js$/);
  if (missing || stale) {
    log(`compiled tests ${missing ? 'missing' : 'older than their sources'}: running tsc -p tsconfig.test.json`);
    run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.test.json']);
  }
  removeOrphans();
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

async function waitHealthy(port, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited early (${child.exitCode ?? child.signalCode})`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(200);
  }
  throw new Error(`code-server did not answer /healthz within ${secs(timeoutMs)}`);
}

/** The results file as it stands (the suite rewrites it after each test; `done` at the end). */
function readResults(file) {
  if (!existsSync(file)) return undefined;
  try {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(r.tests) ? r : undefined;
  } catch {
    return undefined; // unreadable: try again
  }
}

/**
 * A test asked for a picture (`NAME.request` in the screenshots folder): take NAME.png. Or for a
 * click as a person would make it (`NAME.click` holding a Playwright selector): click it and write
 * NAME.clicked with the time of the click (ms since the epoch), or NAME.click-failed with why.
 */
async function takeRequestedShots(page, dir) {
  if (!existsSync(dir)) return;
  for (const f of readdirSync(dir)) {
    if (f.endsWith('.click')) {
      const name = f.slice(0, -'.click'.length);
      const selector = readFileSync(join(dir, f), 'utf8');
      rmSync(join(dir, f), { force: true });
      try {
        const target = page.locator(selector).first();
        await target.waitFor({ state: 'visible', timeout: 2000 });
        await target.click({ timeout: 2000 });
        writeFileSync(join(dir, `${name}.clicked`), String(Date.now()));
      } catch (err) {
        writeFileSync(join(dir, `${name}.click-failed`), err.message.split('\n')[0]);
      }
      continue;
    }
    if (!f.endsWith('.request')) continue;
    const name = f.slice(0, -'.request'.length);
    const tmp = join(dir, `${name}.tmp.png`);
    await page.screenshot({ path: tmp }).catch((err) => log(`screenshot ${name} failed: ${err.message}`));
    rmSync(join(dir, f), { force: true });
    if (existsSync(tmp)) renameSync(tmp, join(dir, `${name}.png`));
  }
}

/** Stop the process group started with setsid (detached): TERM, then KILL. */
async function killGroup(child) {
  if (!child?.pid) return;
  const alive = () => {
    try {
      process.kill(-child.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const [sig, wait] of [
    ['SIGTERM', 5000],
    ['SIGKILL', 2000],
  ]) {
    if (!alive()) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      return;
    }
    const until = Date.now() + wait;
    while (alive() && Date.now() < until) await sleep(100);
  }
}

function logFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.log'))
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .filter((f) => !f.includes(`${join(dir, 'chromium-profile')}/`));
}

function tail(file, lines) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** On failure: the extension host log (and code-server's own) for a person to read. */
function showLogs(runDir) {
  // remoteexthost.log: the extension host; browser-console.log: the suite's console output
  // (the extension host forwards console.* to the workbench); code-server.log: the server.
  const files = logFiles(runDir).filter((f) => /(remoteexthost|code-server|browser-console|page-errors)\.log$|agent-seer\.agent-seer/i.test(f));
  const byTime = files.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  for (const f of byTime) {
    const text = tail(f, 40);
    if (!text) continue;
    console.log(`----- tail of ${f}`);
    console.log(text);
  }
}

async function runOne(spec, host, chromium) {
  const started = Date.now();
  const runDir = mkdtempSync(join(tmpdir(), `agent-seer-it-${spec.name}-`));
  const dirs = {
    userData: join(runDir, 'user-data'),
    extensions: join(runDir, 'extensions'),
    xdgConfig: join(runDir, 'xdg', 'config'),
    xdgData: join(runDir, 'xdg', 'data'),
    xdgCache: join(runDir, 'xdg', 'cache'),
    home: join(runDir, 'home'),
    tmp: join(runDir, 'tmp'),
    browser: join(runDir, 'chromium-profile'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const workspace = join(runDir, spec.workspace);
  cpSync(join(repoRoot, 'test', 'integration', 'workspaces', spec.workspace), workspace, { recursive: true });
  for (const e of spec.extensions ?? []) {
    const from = join(repoRoot, 'test', 'integration', 'extensions', e);
    const { publisher, name, version } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
    // code-server finds it on start (no extensions.json yet: it scans the folder).
    cpSync(from, join(dirs.extensions, `${publisher}.${name}-${version}`), { recursive: true });
  }
  if (spec.installVsix) {
    const vsix = join(runDir, 'agent-seer.vsix');
    const files = packageVsix(vsix);
    log(`${spec.name}: packaged ${files.length} files, ${(statSync(vsix).size / 1024).toFixed(0)} KB; installing with --install-extension`);
    const r = spawnSync(host.node, [host.codeServerEntry, '--install-extension', vsix, '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData], {
      cwd: runDir,
      encoding: 'utf8',
      env: { ...process.env, HOME: dirs.home, XDG_DATA_HOME: dirs.xdgData, XDG_CONFIG_HOME: dirs.xdgConfig, XDG_CACHE_HOME: dirs.xdgCache },
    });
    if (r.status !== 0) throw new Error(`--install-extension failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  }
  const resultsFile = join(runDir, 'results.json');
  const screenshot = join(runDir, 'workbench.png');
  const shotsDir = join(runDir, 'screenshots'); // taken on a test's request (helpers.screenshot)

  // User settings: quiet, deterministic, offline. VS Code's own MCP support must not start the
  // fixtures' servers (the trust suite checks nothing started them).
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(
    join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.enableExperiments': false,
        'workbench.tips.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': 'off',
        'extensions.ignoreRecommendations': true,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'chat.mcp.autostart': 'never',
        // code-server saves edited files after a delay by default; tests of unsaved edits need it off.
        'files.autoSave': 'off',
        'security.workspace.trust.startupPrompt': 'never',
        'security.workspace.trust.emptyWindow': false,
      },
      null,
      2,
    ),
  );

  const port = await freePort();
  const args = [
    host.codeServerEntry,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--user-data-dir',
    dirs.userData,
    '--extensions-dir',
    dirs.extensions,
    '--vscode-option',
    'enable-smoke-test-driver', // without it extensionTestsPath is ignored
    ...(spec.trust ? [] : ['--disable-workspace-trust']),
  ];
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete env[k];
  Object.assign(env, {
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CACHE_HOME: dirs.xdgCache,
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    PATH: `${dirname(host.node)}:${process.env.PATH ?? ''}`,
    AGENT_SEER_TEST_RESULTS: resultsFile,
    AGENT_SEER_TEST_SUITE: spec.name,
    AGENT_SEER_TEST_SCREENSHOTS: shotsDir,
    AGENT_SEER_SHARED: process.env.AGENT_SEER_SHARED ?? resolve(repoRoot, '..', 'shared'),
    // The fake batch APIs end a job within a few polls: poll them every 20 ms, not from 5 s.
    AGENT_SEER_BATCH_POLL_MS: '20',
  });
  // Note: PATH puts Node 24 first for code-server; an MCP fixture server started as `node`
  // from the extension host therefore runs on Node 24 too.

  const out = openSync(join(runDir, 'code-server.log'), 'a');
  // detached: true = setsid(): code-server leads its own process group, stopped as a whole.
  const child = spawn(host.node, args, { cwd: runDir, env, detached: true, stdio: ['ignore', out, out] });
  let browser;
  let outcome = { results: undefined, error: undefined };
  try {
    await waitHealthy(port, child, 60_000);
    const origin = `127.0.0.1:${port}`;
    const payload = [
      ['extensionDevelopmentPath', `vscode-remote://${origin}${spec.developmentPath ? join(repoRoot, spec.developmentPath) : repoRoot}`],
      ['extensionTestsPath', `vscode-remote://${origin}${join(repoRoot, spec.suite)}`],
    ];
    const url = `http://${origin}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;

    browser = await chromium.launchPersistentContext(dirs.browser, {
      executablePath: host.chromium,
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.on('pageerror', (err) => writeFileSync(join(runDir, 'page-errors.log'), `${err.stack ?? err}\n`, { flag: 'a' }));
    page.on('console', (msg) => writeFileSync(join(runDir, 'browser-console.log'), `[${msg.type()}] ${msg.text()}\n`, { flag: 'a' }));
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });

    const deadline = started + SUITE_TIMEOUT_MS;
    for (;;) {
      outcome.results = readResults(resultsFile);
      if (outcome.results?.done) break;
      if (Date.now() > deadline) {
        const last = outcome.results?.tests.at(-1)?.title;
        throw new Error(
          `timed out after ${secs(SUITE_TIMEOUT_MS)} waiting for the suite to finish (${resultsFile}` +
            `${outcome.results ? `; ${outcome.results.tests.length} test(s) finished, the last: ${last}` : '; no test finished'})`,
        );
      }
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}) before the suite finished`);
      await takeRequestedShots(page, shotsDir);
      await sleep(250);
    }
    // The workbench as a person would see it once the suite is done.
    await sleep(1000);
    await page.screenshot({ path: screenshot }).catch((err) => log(`screenshot failed: ${err.message}`));
  } catch (err) {
    outcome.error = err;
    if (browser) {
      const page = browser.pages()[0];
      await page?.screenshot({ path: screenshot }).catch(() => {});
    }
  } finally {
    await browser?.close().catch(() => {});
    await killGroup(child);
  }
  return { ...outcome, runDir, screenshot, ms: Date.now() - started };
}

/** Keep the run folder small on success: screenshot, results and logs stay, the rest goes. */
function tidy(runDir) {
  const logs = logFiles(runDir);
  mkdirSync(join(runDir, 'logs'), { recursive: true });
  for (const f of logs) {
    if (dirname(f) === runDir || f.startsWith(join(runDir, 'logs'))) continue;
    cpSync(f, join(runDir, 'logs', relative(runDir, f).replaceAll('/', '__')));
  }
  for (const e of readdirSync(runDir)) {
    if (!['workbench.png', 'screenshots', 'results.json', 'logs', 'code-server.log', 'page-errors.log', 'browser-console.log'].includes(e)) {
      rmSync(join(runDir, e), { recursive: true, force: true });
    }
  }
}

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const suites = wanted.length ? SUITES.filter((s) => wanted.includes(s.name)) : SUITES;
  if (suites.length === 0) throw new Error(`no suite named ${wanted.join(', ')} (have: ${SUITES.map((s) => s.name).join(', ')})`);

  const host = ensureHost();
  ensureCompiled(suites);
  const { chromium } = require('playwright-core');

  let passed = 0;
  let failed = 0;
  for (const spec of suites) {
    log(`suite ${spec.name}: workspace ${spec.workspace}${spec.trust ? ' (untrusted, workspace trust on)' : ''}`);
    const { results, error, runDir, screenshot, ms } = await runOne(spec, host, chromium);
    let suiteFailed = false;
    if (results) {
      for (const t of results.tests) {
        const mark = t.state === 'passed' ? 'ok  ' : t.state === 'pending' ? 'skip' : 'FAIL';
        console.log(`  ${mark} ${spec.name} › ${t.title}${t.durationMs ? ` (${t.durationMs} ms)` : ''}`);
        if (t.error)
          console.log(
            t.error
              .split('\n')
              .map((l) => `         ${l}`)
              .join('\n'),
          );
      }
      passed += results.passed;
      failed += results.failed;
      if (results.failed > 0 || results.tests.length === 0) suiteFailed = true;
      if (results.tests.length === 0) failed += 1;
    }
    if (error) {
      console.log(`  FAIL ${spec.name} › ${error.message}`);
      failed += 1;
      suiteFailed = true;
    }
    if (existsSync(screenshot)) log(`screenshot: ${screenshot}`);
    const shots = join(runDir, 'screenshots');
    if (existsSync(shots)) for (const f of readdirSync(shots).filter((f) => f.endsWith('.png'))) log(`screenshot: ${join(shots, f)}`);
    if (suiteFailed) {
      showLogs(runDir);
      log(`suite ${spec.name} FAILED in ${secs(ms)}; run folder kept: ${runDir}`);
    } else {
      if (!KEEP_RUNS) tidy(runDir);
      log(`suite ${spec.name} done in ${secs(ms)} (run folder: ${runDir})`);
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[integration] ${err.stack ?? err}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
