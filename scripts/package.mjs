#!/usr/bin/env node
// Packages the extension as a .vsix with @vscode/vsce (a devDependency), from the bundles in dist/
// (`npm run package` builds them first), and checks what went in: only the files .vscodeignore
// lets through, no node_modules (the bundles need none at run time), no sources or maps.
//
//   node scripts/package.mjs [--out FILE]      default: agent-seer.vsix in the clone
//
// Also imported by scripts/test-integration.mjs (the vsix suite installs what this makes).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The files a .vsix may hold (as `vsce ls` names them; vsce adds its own manifest files). */
const ALLOWED = [
  /^dist\/(extension|deferred|common|report|scenario|cli|typescript)\.js$/,
  /^dist\/[^/]+\.wasm$/,
  /^(prompts|schemas)\/[^/]+\.(txt|json)$/,
  /^media\/[^/]+\.svg$/,
  /^media\/scenario\/[^/]+\.css$/,
  /^media\/walkthrough\/[^/]+\.md$/,
  /^examples\/filesystem\.json$/,
  /^docs\/[^/]+\.md$/,
  /^(package\.json|README\.md|CONTRIBUTING\.md|LICENSE)$/,
];

function vsce(args) {
  const bin = join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vsce ${args[0]} failed (${r.status ?? r.signal}):\n${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Writes the .vsix to `out` and returns the files it holds; throws, writing nothing, when one is not allowed. */
export function packageVsix(out) {
  for (const f of ['dist/extension.js', 'dist/deferred.js', 'dist/common.js', 'dist/cli.js', 'dist/report.js'])
    if (!existsSync(join(repoRoot, f))) throw new Error(`${f} missing: run npm run build first`);
  const files = vsce(['ls', '--no-dependencies']).split('\n').filter(Boolean).sort();
  const stray = files.filter((f) => !ALLOWED.some((re) => re.test(f)));
  if (stray.length) throw new Error(`the package would hold files it must not: ${stray.join(', ')} (see .vscodeignore)`);
  vsce(['package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out]);
  return files;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const out = resolve(at > 0 && process.argv[at + 1] ? process.argv[at + 1] : join(repoRoot, 'agent-seer.vsix'));
  try {
    const files = packageVsix(out);
    console.log(`${out}: ${files.length} files`);
    for (const f of files) console.log(`  ${f}`);
  } catch (err) {
    console.error(`package: ${err.message}`);
    process.exit(1);
  }
}
