/**
 * The CLI as a user's terminal shows it: colour only on a terminal (not with NO_COLOR, --no-color
 * or a pipe), a progress line redrawn in place on a terminal and plain lines otherwise, paths
 * relative inside the current folder and absolute outside, text that fits 100 columns, a shared
 * parameter's finding said once, a missed gate's own exit code. The terminal is a real
 * pseudo-terminal (util-linux `script`) around the built CLI (npm run build first).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { colourWanted, paintErrLine, paintFor, renderMarks, statusTone } from '../../../src/cli/colour';
import { EXIT } from '../../../src/cli/errors';
import { shownPath } from '../../../src/cli/format';
import { withoutGlobalOptions } from '../../../src/cli/globalOptions';
import { bar, clock, PLAIN_EVERY_MS, startProgress } from '../../../src/cli/progress';
import { cutMiddle, renderTable, wrapLine } from '../../../src/cli/table';
import { builtCli, capturingIo, runBuiltCli } from '../cliRunner';
import { configsDir, sharedDir, specsDir } from '../fixturePaths';

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-ux-'));
  made.push(dir);
  return dir;
}
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** An SGR escape (colour, bold, erase-line): what a terminal acts on. */
// eslint-disable-next-line no-control-regex -- the escape is what this looks for
const SGR = /\u001b\[[0-9;]*m/;
// eslint-disable-next-line no-control-regex -- the escape is what this looks for
const ANY_ESCAPE = /\u001b/;

/** A clean environment for the CLI: no CI, no colour variables, a terminal type that takes colour. */
function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color', ...extra };
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The built CLI under a real pseudo-terminal (stdout and stderr both the terminal); what the terminal received. */
function inPty(args: string[], o: { cwd: string; env?: NodeJS.ProcessEnv }): { status: number | null; text: string } {
  const command = [process.execPath, builtCli, ...args].map(shellQuote).join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: o.cwd, env: o.env ?? baseEnv(), encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, text: r.stdout };
}

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const warned = join(specsDir, 'brave-search.json');

describe('colour', { skip: !hasScript && 'util-linux script is not installed' }, () => {
  it('on a terminal: severities, table headers and the gate line are coloured; the exit is the gate code', () => {
    const r = inPty(['inspect', warned, '--fail-on', 'warning'], { cwd: tempDir() });
    assert.equal(r.status, EXIT.gate, r.text);
    assert.match(r.text, SGR);
    assert.ok(r.text.includes('\u001b[1mserver'), 'the header is bold');
    assert.ok(r.text.includes('\u001b[33mwarning\u001b[39m'), 'a warning is yellow');
    assert.ok(r.text.includes('\u001b[31m--fail-on warning failed'), 'the missed bar is red');
  });

  it('none with NO_COLOR=1, with --no-color (before or after the command) or when piped', async () => {
    const cwd = tempDir();
    for (const [what, args, env] of [
      ['NO_COLOR=1', ['inspect', warned], baseEnv({ NO_COLOR: '1' })],
      ['--no-color', ['inspect', warned, '--no-color'], baseEnv()],
      ['--no-color first', ['--no-color', 'inspect', warned], baseEnv()],
    ] as const) {
      const r = inPty([...args], { cwd, env });
      assert.equal(r.status, 0, `${what}: ${r.text}`);
      assert.ok(r.text.includes('brave_web_search'), `${what}: the findings are printed`);
      assert.doesNotMatch(r.text, ANY_ESCAPE, what);
    }
    const piped = await runBuiltCli(['inspect', warned, '--fail-on', 'warning'], { cwd, env: { TERM: 'xterm-256color' } });
    assert.equal(piped.code, EXIT.gate);
    assert.doesNotMatch(piped.out + piped.err, ANY_ESCAPE);
    assert.match(piped.err, /^agent-seer: --fail-on warning failed/m);
  });

  it('FORCE_COLOR turns it on when piped, but never in --json', async () => {
    const cwd = tempDir();
    const forced = await runBuiltCli(['inspect', warned], { cwd, env: { FORCE_COLOR: '1' } });
    assert.match(forced.out, SGR);
    const json = await runBuiltCli(['inspect', warned, '--json'], { cwd, env: { FORCE_COLOR: '1' } });
    assert.doesNotMatch(json.out, ANY_ESCAPE);
    JSON.parse(json.out);
  });

  it('a colour escape inside a spec name is still shown escaped on a colour terminal', () => {
    const r = inPty(['inspect', join(specsDir, 'context7.json')], { cwd: tempDir() });
    assert.equal(r.status, 0, r.text);
    // Every escape the terminal got is one of ours: SGR or the erase-line of the progress line.
    // eslint-disable-next-line no-control-regex -- escapes are what this looks for
    const escapes = r.text.match(/\u001b[^a-zA-Z]*[a-zA-Z]/g) ?? [];
    assert.ok(escapes.length > 0);
    // eslint-disable-next-line no-control-regex -- escapes are what this looks for
    for (const e of escapes) assert.match(e, /^\u001b\[(1|2|22|31|32|33|39|K)?[mK]$/, JSON.stringify(e));
  });
});

describe('progress', { skip: !hasScript && 'util-linux script is not installed' }, () => {
  it('on a terminal: one line redrawn with \\r (bar, count, time), cleared before the summary', () => {
    const cwd = tempDir();
    const r = inPty(['generate', join(specsDir, 'github-official-all.json'), '--out', 'h'], { cwd });
    assert.equal(r.status, 0, r.text);
    // A redraw is a carriage return that is not the end of a line (the terminal sends \r\n for those).
    const redraws = r.text.split(/\r(?!\n)/).filter((s) => s.startsWith('generate: write ['));
    assert.ok(redraws.length >= 2, r.text);
    assert.match(redraws.at(-1)!, /^generate: write \[#{20}\] (\d+)\/\1 · \d+ s/);
    assert.ok(r.text.includes('\r\u001b[K'), 'the line is cleared');
    const summary = r.text.indexOf('Wrote ');
    assert.ok(summary > r.text.lastIndexOf('generate: write ['), 'the summary comes after the progress line');
    assert.doesNotMatch(r.text.slice(summary), /generate: write/);
  });

  it('with CI=true on a terminal, and piped: plain lines, a handful, no redraw', async () => {
    const cwd = tempDir();
    const ci = inPty(['generate', join(specsDir, 'github-official-all.json'), '--out', 'ci'], { cwd, env: baseEnv({ CI: 'true' }) });
    assert.equal(ci.status, 0, ci.text);
    assert.doesNotMatch(ci.text, /\r(?!\n)/);
    assert.match(ci.text, /^generate: write 0\/\d+ \(0%\) · \d+ s\r$/m);
    const piped = await runBuiltCli(['generate', join(specsDir, 'github-official-all.json'), '--out', 'p'], { cwd });
    assert.equal(piped.code, 0, piped.err);
    assert.doesNotMatch(piped.err, /\r/);
    const lines = piped.err.split('\n').filter((l) => l.startsWith('generate: '));
    assert.ok(lines.length >= 2 && lines.length <= 12, lines.join('\n'));
    assert.match(lines.at(-1)!, /^generate: write (\d+)\/\1 \(100%\)/);
    // judge and run use the same lines: judge's offline pass over the harness.
    const judged = await runBuiltCli(['judge', 'p'], { cwd });
    assert.equal(judged.code, 0, judged.err);
    const judgeLines = judged.err.split('\n').filter((l) => l.startsWith('judge: '));
    assert.ok(judgeLines.length >= 2 && judgeLines.length <= 12, judged.err);
    assert.match(judgeLines.at(-1)!, /^judge: records (\d+)\/\1 \(100%\)/);
  });

  it('plain lines: a line when a stage starts and ends, in between at most a tenth at a time and every 5 s', () => {
    const io = capturingIo('/');
    let t = 0;
    const p = startProgress(io, 'judge', { now: () => t });
    for (let i = 0; i <= 1000; i++) {
      p.update('records', i, 1000);
      t += 50; // 50 s in all: 10 steps of a tenth, each more than 5 s apart
    }
    p.end();
    assert.ok(io.stderr.length >= 10 && io.stderr.length <= 12, io.stderr.join('\n'));
    assert.match(io.stderr[0]!, /^judge: records 0\/1000 \(0%\)/);
    assert.match(io.stderr.at(-1)!, /^judge: records 1000\/1000 \(100%\)/);
    // Fast work: only the start and the end.
    const fast = capturingIo('/');
    let u = 0;
    const q = startProgress(fast, 'run', { now: () => u });
    for (let i = 0; i <= 1000; i++) {
      q.update('scenarios', i, 1000);
      u += 1;
    }
    assert.equal(fast.stderr.length, 2, fast.stderr.join('\n'));
    assert.ok(PLAIN_EVERY_MS >= 5000);
  });

  it('on a status line: bar, count, elapsed, and an ETA once a few items have finished; cleared at the end', () => {
    const shown: string[] = [];
    let cleared = 0;
    const io = { ...capturingIo('/'), status: { show: (s: string) => shown.push(s), clear: () => cleared++, columns: 80 } };
    let t = 0;
    const p = startProgress(io, 'run', { now: () => t });
    p.update('scenarios', 0, 10);
    t += 2000;
    p.update('scenarios', 2, 10);
    t += 2000;
    p.update('scenarios', 4, 10);
    p.end();
    assert.equal(io.stderr.length, 0, 'no plain lines on a terminal');
    assert.equal(shown[0], `run: scenarios ${bar(0, 10)} 0/10 · 0 s`);
    assert.doesNotMatch(shown[1]!, /ETA/, 'two items are too few to guess from');
    assert.equal(shown[2], `run: scenarios [########------------] 4/10 · 4 s · ETA 6 s`);
    assert.equal(cleared, 1);
    assert.equal(clock(125_000), '2:05');
  });
});

describe('paths', () => {
  it('inside the current folder relative, outside it absolute, the folder itself "."', () => {
    assert.equal(shownPath('/a/b', '/a/b/c/d.json'), join('c', 'd.json'));
    assert.equal(shownPath('/a/b', '/a/x/d.json'), '/a/x/d.json');
    assert.equal(shownPath('/a/b', '/a/b'), '.');
    assert.equal(shownPath('/a/b', '/a/b/..c'), '..c');
    assert.equal(shownPath('/a/b/c/d', '/etc/x'), '/etc/x');
  });

  it('detect on an absolute path prints no ../ and fits 100 columns; relative input stays relative', async () => {
    const r = await runBuiltCli(['detect', configsDir], { cwd: tempDir() });
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out + r.err, /\.\.\//);
    assert.ok(r.out.includes(configsDir), 'outside the current folder: absolute');
    for (const line of r.out.split('\n')) assert.ok(line.length <= 100, `${line.length}: ${line}`);
    const rel = await runBuiltCli(['detect', 'configs'], { cwd: join(sharedDir, 'fixtures') });
    assert.equal(rel.code, 0, rel.err);
    assert.match(rel.out, /^ {2}configs\/cursor-mcp-json\//m);
    assert.doesNotMatch(rel.out, /\.\.\/|\/work\//);
  });
});

describe('text that fits 100 columns', () => {
  it('inspect of every fixture spec: no line over 100 columns', async () => {
    const r = await runBuiltCli(['inspect', specsDir], { cwd: tempDir() });
    assert.ok(r.code === 0 || r.code === EXIT.badInput, r.err);
    const lines = r.out.split('\n');
    assert.ok(lines.length > 100, 'findings are printed');
    for (const line of lines) assert.ok(line.length <= 100, `${line.length}: ${line}`);
  });

  it('tables: the widest column shrinks first, cut in the middle; a path keeps its tail; never below the header', () => {
    const path = '/very/long/folder/name/that/goes/on/and/on/and/on/and/on/and/on/file-name.json';
    const table = renderTable(
      ['server', 'n', 'file', 'runs'],
      [
        ['a-server', 12, path, `docker run ${'-e X=1 '.repeat(30)}image`],
        ['b', 3, 'f.json', 'uvx tool'],
      ],
    );
    const lines = table.split('\n');
    for (const l of lines) assert.ok(l.length <= 100, `${l.length}: ${l}`);
    assert.ok(lines[2]!.includes('…file-name.json') || lines[2]!.includes('file-name.json'), lines[2]);
    assert.match(lines[2]!, /docker run .*….*image/);
    assert.ok(lines[2]!.startsWith('a-server  12  '), 'narrow columns stay whole');
    assert.equal(cutMiddle('abcdefghij', 5), 'ab…ij');
    assert.equal(cutMiddle('/x/y/z/name.json', 12), '/…/name.json');
    assert.equal(cutMiddle('/x/y/z/name.json', 14), '/x/…/name.json');
    // A header is a floor: a table of long headers overflows rather than cutting them.
    const wide = renderTable(['a'.repeat(60), 'b'.repeat(60)], [['x', 'y']], { width: 100 });
    assert.ok(wide.split('\n')[0]!.includes('a'.repeat(60)));
    assert.deepEqual(wrapLine('one two three four', 9, 2), ['one two', '  three', '  four']);
  });
});

describe('inspect groups a shared parameter', () => {
  it('a finding repeated for a parameter many tools share is printed once with the tools; --json keeps one per tool', async () => {
    const cwd = tempDir();
    const spec = join(specsDir, 'github-official-all.json');
    const json = await runBuiltCli(['inspect', spec, '--json'], { cwd });
    const findings = (JSON.parse(json.out) as { servers: { findings: { code: string; tool: string; param?: string; message: string }[] }[] }).servers[0]!
      .findings;
    const groups = new Map<string, string[]>();
    for (const f of findings)
      if (f.param) groups.set(`${f.code} ${f.param} ${f.message}`, [...(groups.get(`${f.code} ${f.param} ${f.message}`) ?? []), f.tool]);
    const [key, tools] = [...groups].sort((a, b) => b[1].length - a[1].length)[0]!;
    const [code, param] = key.split(' ') as [string, string];
    assert.ok(tools.length >= 10, `${key}: ${tools.length} tools`);
    const text = await runBuiltCli(['inspect', spec], { cwd });
    // A finding's line wraps at 100 columns; its continuation lines are indented 12.
    const unwrapped = text.out.replace(/\n {12}/g, ' ');
    const said = unwrapped
      .split('\n')
      .filter((l) => l.includes(`${param} in ${tools.length} tools: ${tools[0]}, ${tools[1]}, ${tools[2]} and ${tools.length - 3} more`));
    assert.equal(said.length, 1, text.out);
    assert.ok(said[0]!.includes(code));
    for (const t of tools)
      assert.ok(
        !unwrapped.includes(`${t}.${param}: `) || findings.some((f) => f.tool === t && f.param === param && `${f.code} ${f.param} ${f.message}` !== key),
        t,
      );
    assert.ok(unwrapped.split('\n').length < findings.length, 'fewer lines than findings');
  });
});

describe('a missed gate', () => {
  it('exits 6 (not 1), a passed one 0, and the help says so', async () => {
    const cwd = tempDir();
    assert.equal(EXIT.gate, 6);
    const missed = await runBuiltCli(['inspect', warned, '--fail-on', 'warning'], { cwd });
    assert.equal(missed.code, 6, missed.err);
    const passed = await runBuiltCli(['inspect', join(specsDir, 'context7.json'), '--fail-on', 'warning'], { cwd });
    assert.equal(passed.code, 0, passed.err);
    const help = await runBuiltCli(['--help'], { cwd });
    assert.match(help.out, /6 a gate missed its bar/);
    assert.match(help.out, /--no-color/);
    const inspectHelp = await runBuiltCli(['inspect', '--help'], { cwd });
    assert.match(inspectHelp.out, /--no-color/);
    assert.match(
      readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'cli.md'), 'utf8'),
      /\| *6 *\|/,
      'the exit-code table of docs/cli.md has a row for 6',
    );
  });
});

describe('colour rules', () => {
  it('a terminal only; NO_COLOR and --no-color win; FORCE_COLOR forces; TERM=dumb is plain', () => {
    assert.equal(colourWanted({ isTTY: true }, {}), true);
    assert.equal(colourWanted({ isTTY: false }, {}), false);
    assert.equal(colourWanted({}, {}), false);
    assert.equal(colourWanted({ isTTY: true }, { NO_COLOR: '1' }), false);
    assert.equal(colourWanted({ isTTY: true }, { NO_COLOR: '' }), true, 'an empty NO_COLOR is not set (no-color.org)');
    assert.equal(colourWanted({ isTTY: true }, {}, true), false);
    assert.equal(colourWanted({ isTTY: false }, { FORCE_COLOR: '1' }), true);
    assert.equal(colourWanted({ isTTY: true }, { FORCE_COLOR: '0' }), false);
    assert.equal(colourWanted({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' }), false);
    assert.equal(colourWanted({ isTTY: true }, { TERM: 'dumb' }), false);
    assert.deepEqual(withoutGlobalOptions(['inspect', '--no-color', 'x', '--', '--no-color']), { args: ['inspect', 'x', '--', '--no-color'], noColor: true });
    const red = paintFor(true).bad('failed');
    assert.equal(renderMarks(red, true), '\u001b[31mfailed\u001b[39m');
    assert.equal(renderMarks(red, false), 'failed');
    assert.equal(paintFor(false).bad('failed'), 'failed');
    assert.equal(statusTone('complete'), 'ok');
    assert.equal(statusTone('partial'), 'warn');
    assert.equal(statusTone('stopped'), 'bad');
    const on = paintFor(true);
    assert.equal(renderMarks(paintErrLine('agent-seer: warning: x', on), true), 'agent-seer: \u001b[33mwarning\u001b[39m: x');
    assert.equal(renderMarks(paintErrLine('agent-seer: stopped: quota', on), true), 'agent-seer: \u001b[31mstopped\u001b[39m: quota');
    assert.equal(paintErrLine('agent-seer: warnings galore', on), 'agent-seer: warnings galore');
    assert.equal(paintErrLine('agent-seer: warning: x', paintFor(false)), 'agent-seer: warning: x');
  });
});
