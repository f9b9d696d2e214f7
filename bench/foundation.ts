/**
 * Foundation benchmarks, run in one process and reported as ratios against a baseline measured
 * in the same run (so a slower machine moves both):
 *  - detection on a generated workspace of 50,000 files with a few dozen config files, against
 *    a bare recursive directory walk of the same tree (the least any detector must do);
 *  - `inspect` of the largest fixture spec (twilio, 197 tools, one with 205 params), against
 *    reading and JSON.parse-ing the same file.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectPaths } from '../src/core/inspect';
import { detectWorkspace } from '../src/core/discovery/detect';
import { configsDir, specsDir } from '../test/unit/fixturePaths';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  bound?: number;
  note?: string;
}

/** Median of n timed runs of fn (ms). */
async function median(n: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Where each config fixture goes in a workspace, by its fixture folder. */
const LAYOUT: Record<string, string> = {
  'vscode-mcp-json': '.vscode/mcp.json',
  'claude-code-mcp-json': '.mcp.json',
  'cursor-mcp-json': '.cursor/mcp.json',
  'claude-desktop': 'claude_desktop_config.json',
  'vscode-settings-json': '.vscode/settings.json',
  windsurf: '.windsurf/mcp_config.json',
  'gemini-cli': '.gemini/settings.json',
  'codex-toml': '.codex/config.toml',
  'continue-yaml': '.continue/mcpServers/servers.yaml',
  'mcp-registry-server-json': 'server.json',
};

/** Builds a monorepo-like tree: 50 packages × (src files, JSON data, node_modules noise) + configs. */
export function generateWorkspace(root: string, totalFiles = 50_000): { files: number; configs: number } {
  let files = 0;
  let configs = 0;
  const packages = 50;
  const perPackage = Math.floor(totalFiles / packages);
  for (let p = 0; p < packages; p++) {
    const pkg = join(root, 'packages', `pkg-${p}`);
    for (let d = 0; d < 10; d++) mkdirSync(join(pkg, 'src', `dir-${d}`), { recursive: true });
    mkdirSync(join(pkg, 'data'), { recursive: true });
    mkdirSync(join(pkg, 'node_modules', 'dep', 'lib'), { recursive: true });
    for (let i = 0; i < perPackage; i++) {
      const kind = i % 10;
      let file: string;
      if (kind < 6) file = join(pkg, 'src', `dir-${i % 10}`, `file-${i}.ts`);
      else if (kind < 8) file = join(pkg, 'data', `data-${i}.json`);
      else file = join(pkg, 'node_modules', 'dep', 'lib', `m-${i}.js`);
      writeFileSync(file, kind >= 6 && kind < 8 ? `{"id": ${i}, "tags": ["a", "b"], "items": [1, 2, 3]}` : `export const v${i} = ${i};\n`);
      files++;
    }
  }
  // A few dozen config files: every fixture format, in several packages.
  const folders = readdirSync(configsDir, { withFileTypes: true }).filter((e) => e.isDirectory() && LAYOUT[e.name]);
  for (let copy = 0; copy < 3; copy++) {
    for (const folder of folders) {
      for (const name of readdirSync(join(configsDir, folder.name))) {
        const target = join(root, 'packages', `pkg-${copy * 13 + (configs % 13)}`, LAYOUT[folder.name]!);
        mkdirSync(join(target, '..'), { recursive: true });
        copyFileSync(join(configsDir, folder.name, name), target);
        configs++;
        files++;
      }
    }
  }
  // A handful of spec snapshots among the data.
  for (const spec of ['filesystem.json', 'git-official.json', 'slack.json']) {
    mkdirSync(join(root, '.agentseer', 'specs'), { recursive: true });
    copyFileSync(join(specsDir, spec), join(root, '.agentseer', 'specs', spec));
    files++;
  }
  return { files, configs };
}

async function walk(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) n += await walk(join(dir, e.name));
    else n++;
  }
  return n;
}

export async function runFoundationBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const root = mkdtempSync(join(tmpdir(), 'agent-seer-bench-'));
  try {
    const made = generateWorkspace(root);
    const found = await detectWorkspace(root);
    const walkMs = await median(5, () => walk(root));
    const detectMs = await median(5, () => detectWorkspace(root));
    results.push({
      name: `detect: ${made.files} files, ${made.configs} configs (${found.definitions.length} servers, ${found.specFiles.length} specs found)`,
      value: detectMs,
      unit: 'ms',
      baseline: walkMs,
      ratio: detectMs / walkMs,
      note: 'baseline: bare recursive readdir of the same tree',
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  const twilio = join(specsDir, 'twilio-api-v2010.json');
  const parseMs = await median(7, async () => JSON.parse(await readFile(twilio, 'utf8')));
  const inspectMs = await median(7, () => inspectPaths([twilio]));
  const size = readFileSync(twilio).length;
  results.push({
    name: `inspect twilio-api-v2010.json (197 tools, ${(size / 1024).toFixed(0)} KiB)`,
    value: inspectMs,
    unit: 'ms',
    baseline: parseMs,
    ratio: inspectMs / parseMs,
    note: 'baseline: readFile + JSON.parse of the same file',
  });
  return results;
}
