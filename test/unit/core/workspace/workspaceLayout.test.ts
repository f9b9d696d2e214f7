/**
 * One home for names and defaults (issue 8): package.json's settings agree with
 * workspace/defaults.ts; the CLI finds snapshots in the workspace's `agentSeer.snapshotFolder`;
 * both front ends name a harness folder after the server; every command answers `--help`.
 * Through the real CLI `run()` on real files.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMMANDS, run, topLevelHelp } from '../../../../src/cli/main';
import { resolveSpecPath } from '../../../../src/core/app/resolveSpec';
import { throttleProgress } from '../../../../src/core/app/throttle';
import { SETTING_DEFAULTS } from '../../../../src/core/workspace/defaults';
import { harnessFolderName, snapshotFileName } from '../../../../src/core/workspace/layout';
import { repoRoot, specsDir } from '../../fixturePaths';
import { capturingIo, type CapturingIo } from '../../cliRunner';

const io = (cwd: string): CapturingIo => capturingIo(cwd);

const slackSpec = join(specsDir, 'slack.json');
/** Its server reports the name `secure-filesystem-server`. */
const filesystemSpec = join(specsDir, 'filesystem.json');

describe('defaults', () => {
  it("package.json's contributes.configuration defaults are workspace/defaults.ts's", async () => {
    const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default: unknown }> } };
    };
    const fromPackage = Object.fromEntries(
      Object.entries(pkg.contributes.configuration.properties).map(([k, v]) => [k.replace(/^agentSeer\./, ''), v.default]),
    );
    assert.deepEqual(fromPackage, { ...SETTING_DEFAULTS });
  });
});

describe('layout', () => {
  it('names a harness folder with the snapshot file slug', () => {
    assert.equal(harnessFolderName('filesystem'), 'filesystem');
    assert.equal(`${harnessFolderName('My Server/../x')}.json`, snapshotFileName('My Server/../x'));
    assert.equal(harnessFolderName('con'), '_con');
  });
});

describe('progress throttling', () => {
  it('shows at most one update per interval, and the ones marked always', () => {
    let t = 0;
    const shown: number[] = [];
    const show = throttleProgress(1000, (p: number) => shown.push(p), { now: () => t, always: (p) => p === 99 });
    for (const [at, p] of [
      [0, 1],
      [500, 2],
      [999, 3],
      [1000, 4],
      [1200, 99],
      [1300, 5],
    ] as const) {
      t = at;
      show(p);
    }
    assert.deepEqual(shown, [1, 4, 99]);
  });
});

describe('the snapshot folder and harness names, in the CLI', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-layout-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A workspace with a VS Code config for `slack` and `filesystem`, and optional settings text. */
  async function workspace(name: string, settings?: string): Promise<string> {
    const ws = join(root, name);
    await mkdir(join(ws, '.vscode'), { recursive: true });
    await writeFile(
      join(ws, '.vscode', 'mcp.json'),
      '{ "servers": { "slack": { "command": "npx", "args": ["server-slack"] }, "filesystem": { "command": "npx", "args": ["server-filesystem"] } } }',
    );
    if (settings !== undefined) await writeFile(join(ws, '.vscode', 'settings.json'), settings);
    return ws;
  }

  it('generate and inspect find a snapshot in agentSeer.snapshotFolder (JSONC settings)', async () => {
    const ws = await workspace('custom', '{\n  // where the editor writes snapshots\n  "agentSeer.snapshotFolder": "tools/snapshots",\n}\n');
    const missing = io(ws);
    assert.equal(await run(['generate', '.vscode/mcp.json', '--server', 'slack'], missing), 2);
    assert.equal(missing.stderr.length, 1);
    assert.match(
      missing.stderr[0]!,
      /no snapshot of server "slack" at tools\/snapshots\/slack\.json: run `agent-seer snapshot \.vscode\/mcp\.json --server slack --out tools\/snapshots` first/,
    );

    await mkdir(join(ws, 'tools', 'snapshots'), { recursive: true });
    await copyFile(slackSpec, join(ws, 'tools', 'snapshots', 'slack.json'));
    const gen = io(ws);
    assert.equal(await run(['generate', '.vscode/mcp.json', '--server', 'slack', '--json'], gen), 0, gen.stderr.join('\n'));
    assert.equal((JSON.parse(gen.stdout.join('\n')) as { outputDir: string }).outputDir, join(ws, 'evals', 'slack'));

    const inspect = io(ws);
    assert.equal(await run(['inspect', '.vscode/mcp.json', '--json'], inspect), 0, inspect.stderr.join('\n'));
    const result = JSON.parse(inspect.stdout.join('\n')) as { servers: { source: string }[]; unsnapshotted: { name: string }[] };
    assert.deepEqual(
      result.servers.map((s) => s.source),
      [join(ws, 'tools', 'snapshots', 'slack.json')],
    );
    assert.deepEqual(result.unsnapshotted, [{ name: 'filesystem', file: join(ws, '.vscode', 'mcp.json') }]);
    const text = io(ws);
    await run(['inspect', '.vscode/mcp.json'], text);
    assert.match(text.stdout.join('\n'), /--server "filesystem" --out tools\/snapshots/);
  });

  it('reads the nested form too', async () => {
    const ws = await workspace('nested', '{ "agentSeer": { "snapshotFolder": "snaps" } }');
    await mkdir(join(ws, 'snaps'), { recursive: true });
    await copyFile(slackSpec, join(ws, 'snaps', 'slack.json'));
    const gen = io(ws);
    assert.equal(await run(['generate', '.vscode/mcp.json', '--server', 'slack', '--json'], gen), 0, gen.stderr.join('\n'));
  });

  it('refuses a snapshot folder outside the workspace, or a broken setting, in one line (exit 2)', async () => {
    const cases: [string, string, RegExp][] = [
      ['outside', '{ "agentSeer.snapshotFolder": "../elsewhere" }', /settings\.json: agentSeer\.snapshotFolder "\.\.\/elsewhere" leads outside/],
      ['notString', '{ "agentSeer.snapshotFolder": 3 }', /settings\.json: agentSeer\.snapshotFolder must be a folder path/],
      ['broken', '{ "agentSeer.snapshotFolder": ', /settings\.json: cannot read agentSeer\.snapshotFolder: settings are not valid JSONC/],
    ];
    for (const [name, settings, message] of cases) {
      const ws = await workspace(name, settings);
      for (const argv of [
        ['generate', '.vscode/mcp.json', '--server', 'slack'],
        ['inspect', '.vscode/mcp.json'],
      ]) {
        const c = io(ws);
        assert.equal(await run(argv, c), 2, `${name}: ${argv[0]}`);
        assert.equal(c.stderr.length, 1, `${name} ${argv[0]}: ${c.stderr.join(' | ')}`);
        assert.match(c.stderr[0]!, message);
      }
    }
  });

  it('names the harness after the server, not the name the server reports', async () => {
    const ws = await workspace('names');
    await mkdir(join(ws, '.agentseer', 'specs'), { recursive: true });
    const snap = join(ws, '.agentseer', 'specs', 'filesystem.json');
    await copyFile(filesystemSpec, snap);
    const viaConfig = io(ws);
    assert.equal(await run(['generate', '.vscode/mcp.json', '--server', 'filesystem', '--json'], viaConfig), 0, viaConfig.stderr.join('\n'));
    assert.equal((JSON.parse(viaConfig.stdout.join('\n')) as { outputDir: string }).outputDir, join(ws, 'evals', 'filesystem'));
    const viaSnapshot = io(ws);
    assert.equal(await run(['generate', '.agentseer/specs/filesystem.json', '--json'], viaSnapshot), 0, viaSnapshot.stderr.join('\n'));
    assert.equal((JSON.parse(viaSnapshot.stdout.join('\n')) as { outputDir: string }).outputDir, join(ws, 'evals', 'filesystem'));
    // A spec file outside the snapshot folder has only its own name.
    const loose = io(ws);
    assert.equal(await run(['generate', filesystemSpec, '--json'], loose), 0, loose.stderr.join('\n'));
    assert.equal((JSON.parse(loose.stdout.join('\n')) as { outputDir: string }).outputDir, join(ws, 'evals', 'secure-filesystem-server'));
  });

  it("the editor's resolution (its snapshot folder setting) gives the CLI's harness name", async () => {
    const ws = await workspace('editor');
    const folder = join(ws, 'custom');
    await mkdir(folder, { recursive: true });
    await copyFile(filesystemSpec, join(folder, 'filesystem.json'));
    // What extension/generateCommand.ts passes: its resolved agentSeer.snapshotFolder and workspace folder.
    const r = await resolveSpecPath(join(folder, 'filesystem.json'), { snapshotFolders: [folder], workspaceRoots: [ws] });
    assert.ok(r.ok);
    assert.equal(r.spec.name, 'secure-filesystem-server');
    assert.equal(r.server, 'filesystem');
    assert.equal(r.harnessName, 'filesystem');
  });
});

describe('agent-seer <command> --help', () => {
  for (const name of Object.keys(COMMANDS)) {
    it(`${name} --help and -h print its usage and exit 0`, async () => {
      for (const flag of ['--help', '-h']) {
        const c = io(repoRoot);
        assert.equal(await run([name, flag], c), 0, `${name} ${flag}: ${c.stderr.join(' | ')}`);
        assert.deepEqual(c.stderr, []);
        const text = c.stdout.join('\n');
        assert.match(text, new RegExp(`^Usage: agent-seer ${name} `));
        // Every option of the command's table is documented in its usage.
        for (const option of Object.keys(COMMANDS[name]!.options)) assert.match(text, new RegExp(`--${option}\\b`), `${name}: --${option}`);
        assert.match(text, /-h, --help/);
      }
      // Help wins over other arguments, even bad ones.
      const c = io(repoRoot);
      assert.equal(await run([name, 'x', '--no-such-option', '--help'], c), 0);
      assert.equal(await run(['help', name], io(repoRoot)), 0);
    });
  }

  it('the top-level help lists every command from the table', async () => {
    const c = io(repoRoot);
    assert.equal(await run(['--help'], c), 0);
    assert.equal(c.stdout.join('\n'), topLevelHelp());
    for (const name of Object.keys(COMMANDS)) assert.match(topLevelHelp(), new RegExp(`agent-seer ${name} `));
    assert.equal(await run([], io(repoRoot)), 2);
  });
});
