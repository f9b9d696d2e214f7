// Bundles the extension (vscode stays external: the host provides it) and the CLI.
// Type-checking is separate (`npm run typecheck`): esbuild only strips types.
import * as esbuild from 'esbuild';
import { chmodSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative, resolve } from 'node:path';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

const watch = process.argv.includes('--watch');

// The Python grammar and tree-sitter's runtime are WebAssembly files read at run time from
// beside the bundle (src/core/sources/python.ts looks there first).
mkdirSync('dist', { recursive: true });
copyFileSync('node_modules/web-tree-sitter/tree-sitter.wasm', 'dist/tree-sitter.wasm');
copyFileSync('node_modules/tree-sitter-python/tree-sitter-python.wasm', 'dist/tree-sitter-python.wasm');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Minified, with source maps beside the bundles for debugging and stack traces in development
  // (`node --enable-source-maps dist/cli.js`); .vscodeignore keeps the maps out of the .vsix.
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
  // jsonc-parser's UMD build uses dynamic requires esbuild cannot follow: prefer ESM entries.
  mainFields: ['module', 'main'],
};

// The extension is two bundles: dist/extension.js (activation: views, diagnostics, the command
// table) and dist/deferred.js (the commands' work and the LLM clients), which
// src/extension/onDemand.ts loads with require() on first use. This keeps that require as it is.
// dist/deferred.js is also the CLI's code (src/deferredBundle.ts): dist/cli.js is a small launcher
// that answers --help itself and requires it for real work, so the heavy libraries ship once.
const deferredExternal = {
  name: 'deferred-external',
  setup(build) {
    build.onResolve({ filter: /^\.\/deferred\.js$/ }, () => ({ path: './deferred.js', external: true }));
    // The compiler is its own bundle beside these (see below).
    build.onResolve({ filter: /^typescript$/ }, () => ({ path: './typescript.js', external: true }));
  },
};

// The libraries activation uses (zod, ajv, yaml, re2js, tree-sitter, ...) are needed by the deferred
// bundle too: they ship once, in dist/common.js, which both require. extension.js is built first and
// every package it imports is recorded; in both bundles an import that resolves into one of those
// packages (from our code or from another library, such as the MCP SDK's zod) becomes
// `require('./common.js')[key]`, key being the module's path from its node_modules folder.
// common.js exports each module through a getter, so a module is evaluated on its first use only.
const sharedPackages = new Set();
const sharedModules = new Map();
const SKIP = Symbol('shared-libs: resolving');
const sharedLibs = (recordPackages) => ({
  name: 'shared-libs',
  setup(build) {
    build.onResolve({ filter: /^\.\/common\.js$/ }, () => ({ path: './common.js', external: true }));
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === SKIP || args.path === 'vscode') return undefined;
      const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: SKIP });
      if (r.errors.length || r.external || !r.path) return undefined;
      const rel = relative(process.cwd(), r.path).split('\\').join('/');
      const pkgRoot = /^(.*?node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(rel)?.[1];
      if (!pkgRoot) return undefined;
      if (recordPackages) sharedPackages.add(pkgRoot);
      else if (!sharedPackages.has(pkgRoot)) return undefined;
      const key = rel.slice(rel.indexOf('node_modules/'));
      sharedModules.set(key, r.path);
      return { path: key, namespace: 'shared-lib' };
    });
    build.onLoad({ filter: /.*/, namespace: 'shared-lib' }, (args) => ({
      contents: `module.exports = require('./common.js')[${JSON.stringify(args.path)}];`,
      loader: 'js',
      resolveDir: process.cwd(),
    }));
  },
});

// The extension host runs on Node, where `navigator` is a global VS Code has deprecated: reading it
// logs a PendingMigrationError. Bundled libraries probe it to detect a browser (zod's eval check on
// the first object parse, debug's colours, openai's platform info); for them this is not a browser.
const extensionHost = {
  ...common,
  external: ['vscode'],
  define: { navigator: 'undefined', 'globalThis.navigator': 'undefined', __AGENT_SEER_VERSION__: JSON.stringify(pkg.version) },
};

const extensionBuild = {
  ...extensionHost,
  entryPoints: ['src/extension/extension.ts'],
  outfile: 'dist/extension.js',
  plugins: [deferredExternal, sharedLibs(true)],
};
const deferredBuild = { ...extensionHost, entryPoints: ['src/deferredBundle.ts'], outfile: 'dist/deferred.js', plugins: [deferredExternal, sharedLibs(false)] };
/** dist/common.js: every shared module the two bundles asked for, each behind a lazy getter. */
const commonBuild = () => ({
  ...extensionHost,
  stdin: {
    contents: [...sharedModules]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, path]) => `Object.defineProperty(exports, ${JSON.stringify(key)}, { enumerable: true, get: () => require(${JSON.stringify(path)}) });`)
      .join('\n'),
    resolveDir: process.cwd(),
    sourcefile: 'common-entry.js',
    loader: 'js',
  },
  outfile: 'dist/common.js',
});

/** The launcher's help texts, from the command table of the freshly built shared bundle. */
function helpTexts() {
  const path = resolve('dist/deferred.js');
  const req = createRequire(import.meta.url);
  delete req.cache[path];
  return req(path).cli().helpTexts();
}
const launcherBuild = () => ({
  ...common,
  entryPoints: ['src/cli/launch.ts'],
  outfile: 'dist/cli.js',
  banner: { js: '#!/usr/bin/env node' },
  define: { __AGENT_SEER_HELP__: JSON.stringify(helpTexts()) },
  plugins: [deferredExternal],
});

// extension.js, deferred.js, common.js and cli.js are built in that order (see above); these apart.
const builds = [
  // The TypeScript compiler (for locating tools in TS/JS server sources): 9 MB, so a bundle of its
  // own, required only when the first TypeScript source is linted (src/core/sources/typescript.ts).
  { ...common, entryPoints: ['node_modules/typescript/lib/typescript.js'], outfile: 'dist/typescript.js', minify: true, sourcemap: false },
  // The report page script (chart.js + chartjs-chart-graph, tree-shaken): inlined into HTML reports
  // under a nonce CSP, or loaded by the report webview. No source map: it would be inlined too.
  // Licence comments are kept (at the end of the file): the bundle ships MIT code.
  {
    entryPoints: ['media/report/report.ts'],
    outfile: 'dist/report.js',
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    minify: true,
    legalComments: 'eof',
    logLevel: 'warning',
  },
  // The scenario panel's page script: no dependencies, loaded by its webview under a nonce CSP.
  {
    entryPoints: ['media/scenario/scenario.ts'],
    outfile: 'dist/scenario.js',
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    minify: true,
    logLevel: 'warning',
  },
];

/** Every bundle once, in the order the shared modules and the launcher's help need. */
async function buildAll() {
  const [ext, def] = await Promise.all([
    esbuild.build({ ...extensionBuild, metafile: true }).then(async (e) => [e, await esbuild.build({ ...deferredBuild, metafile: true })]),
    ...builds.map((b) => esbuild.build(b)),
  ]).then(([pair]) => pair);
  const com = await esbuild.build({ ...commonBuild(), metafile: true });
  // The point of common.js: no library in two of the three bundles (the .vsix would carry it twice).
  const owners = new Map();
  for (const [name, result] of [
    ['extension.js', ext],
    ['deferred.js', def],
    ['common.js', com],
  ])
    for (const input of Object.keys(result.metafile.inputs)) {
      if (input.startsWith('shared-lib:')) continue; // the one-line stubs that require common.js
      const pkgRoot = /^(.*?node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
      if (pkgRoot) owners.set(pkgRoot, new Set([...(owners.get(pkgRoot) ?? []), name]));
    }
  const twice = [...owners].filter(([, names]) => names.size > 1).map(([p, names]) => `${p} (${[...names].join(', ')})`);
  if (twice.length) throw new Error(`libraries bundled twice: ${twice.join('; ')}`);
  await esbuild.build(launcherBuild());
  chmodSync('dist/cli.js', 0o755);
}

await buildAll();
if (watch) {
  // `npm run watch`: rebuild on every save and say so, since esbuild is quiet on success at this
  // log level. The CLI stays executable after a rebuild. common.js is rebuilt when a rebuilt
  // bundle asks for a shared module it lacks; the launcher's help is baked from the first build
  // (restart the watch after changing a command's options to refresh it).
  const announce = (outfile) => ({
    name: 'announce',
    setup(build) {
      build.onEnd((result) => {
        if (outfile === 'dist/cli.js' && result.errors.length === 0) chmodSync(outfile, 0o755);
        console.log(`[watch] ${outfile}: ${result.errors.length ? `${result.errors.length} error(s)` : 'built'} at ${new Date().toLocaleTimeString()}`);
      });
    },
  });
  let commonSize = sharedModules.size;
  const refreshCommon = {
    name: 'refresh-common',
    setup(build) {
      build.onEnd(async (result) => {
        if (result.errors.length || sharedModules.size === commonSize) return;
        commonSize = sharedModules.size;
        await esbuild.build(commonBuild());
        console.log(`[watch] dist/common.js: built at ${new Date().toLocaleTimeString()}`);
      });
    },
  };
  for (const b of [extensionBuild, deferredBuild]) await (await esbuild.context({ ...b, plugins: [...b.plugins, refreshCommon, announce(b.outfile)] })).watch();
  for (const b of builds) await (await esbuild.context({ ...b, plugins: [...(b.plugins ?? []), announce(b.outfile)] })).watch();
  await (await esbuild.context({ ...launcherBuild(), plugins: [deferredExternal, announce('dist/cli.js')] })).watch();
  console.log('[watch] watching src/ and media/report/ (Ctrl+C to stop)');
}
