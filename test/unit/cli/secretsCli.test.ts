/**
 * Secrets never leave the built CLI (dist/cli.js, run as a process): a value from `${env:…}` or
 * `${input:…}` that a server echoes in its argv, its stderr cut at any offset of the secret, and
 * credentials in a `--base-url`, in stdout, stderr and every file written. "Leaves" includes a
 * fragment: no 4 consecutive characters of a secret may appear.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBuiltCli, type BuiltRun } from '../cliRunner';
import { after, describe, it } from 'node:test';
import { specsDir } from '../fixturePaths';
import { writeHostileServer } from '../hostileServer';

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-seer-secrets-'));
  made.push(dir);
  return dir;
}
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The built CLI as a process with exactly `env` (plus PATH), killed after 90 s. */
const runBin = (args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<BuiltRun> => runBuiltCli(args, { cwd, env, killAfterMs: 90_000 });

/** A fixed secret of `length` characters from [A-Z0-9] (no run of it occurs in the CLI's own words). */
function secretOf(seed: number, length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWYZ0123456789';
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[x % alphabet.length];
  }
  return out;
}

/** Fails when `text` holds `secret` or any 4 consecutive characters of it. */
function assertNoFragment(text: string, secret: string, where: string): void {
  for (let i = 0; i + 4 <= secret.length; i++) {
    const fragment = secret.slice(i, i + 4);
    const at = text.indexOf(fragment);
    assert.equal(at, -1, `${where} holds "${fragment}" (characters ${i}–${i + 3} of the secret): …${text.slice(Math.max(0, at - 60), at + 60)}…`);
  }
}

/** Every file under `dir`, as text. */
function filesUnder(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ file: path, text: readFileSync(path, 'utf8') });
  }
  return out;
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

describe('a server that echoes its argv', () => {
  const TAIL = 4096; // the stderr tail kept for messages (STDERR_TAIL_BYTES in live/list.ts)
  const envSecret = secretOf(7, 64);
  const inputSecret = secretOf(11, 24);

  /**
   * A workspace whose config hands the server `${env:SEER_TEST_SECRET}` and `${input:org}` as
   * arguments, and `pad` (how many bytes of stderr follow the argv line) in its env.
   */
  function workspace(mode: 'leak' | 'leak-env' | 'leak-answer', pad = 0): { dir: string; config: string } {
    const dir = tempDir();
    const script = writeHostileServer(dir);
    const config = join(dir, '.mcp.json');
    const args = [script, mode, dir, '${env:SEER_TEST_SECRET}', '--org=${input:org}'];
    const server = { command: process.execPath, args, env: { PAD: String(pad), SERVICE_TOKEN: '${env:SEER_TEST_SECRET}' } };
    writeFileSync(config, JSON.stringify({ mcpServers: { echoing: server } }));
    return { dir, config };
  }

  // The argv line ends with "<envSecret> --org=<inputSecret>\n", then PAD bytes follow: the tail
  // of 4096 bytes starts `offset` characters into the env secret.
  for (const offset of [1, 4, 17, 32, 59, 63]) {
    it(`masks a secret argument cut by the stderr tail ${offset} characters in, in the error line`, async () => {
      const afterSecret = ` --org=${inputSecret}\n`.length;
      const { dir, config } = workspace('leak', TAIL - (envSecret.length - offset) - afterSecret);
      const r = await runBin(
        ['snapshot', config, '--out', join(dir, 'out'), '--input', `org=${inputSecret}`, '--timeout', '20'],
        { SEER_TEST_SECRET: envSecret },
        dir,
      );
      assert.equal(r.code, 1, r.err);
      // The stream is masked before it is cut: the tail holds the end of the argv line with both
      // values masked whole, then the padding.
      assert.match(r.err, /server "echoing" exited with code 1 before answering: .*\*\*\* --org=\*\*\* \| x{3000,}$/m);
      assertNoFragment(r.out + r.err, envSecret, 'the CLI output');
      assertNoFragment(r.out + r.err, inputSecret, 'the CLI output');
    });

    it(`masks a secret env value the server prints, cut by the stderr tail ${offset} characters in`, async () => {
      const { dir, config } = workspace('leak-env', TAIL - (envSecret.length - offset) - 1);
      const r = await runBin(
        ['snapshot', config, '--out', join(dir, 'out'), '--input', `org=${inputSecret}`, '--timeout', '20'],
        { SEER_TEST_SECRET: envSecret },
        dir,
      );
      assert.equal(r.code, 1, r.err);
      // The masked stream is cut: the tail may start inside the mask itself.
      assert.match(r.err, /server "echoing" exited with code 1 before answering: (.* )?\*{1,3} \| x{3000,}$/m);
      assertNoFragment(r.out + r.err, envSecret, 'the CLI output');
    });
  }

  it('a secret before the kept tail, or in a stderr short enough to be kept whole, is masked (and its argv echo on stdout)', async () => {
    const { dir, config } = workspace('leak', 5000);
    const r = await runBin(['snapshot', config, '--out', join(dir, 'out'), '--input', `org=${inputSecret}`], { SEER_TEST_SECRET: envSecret }, dir);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /before answering: x{4000,}$/m, 'the tail is all padding');
    assertNoFragment(r.out + r.err, envSecret, 'the CLI output');
    const whole = workspace('leak', 0);
    const short = await runBin(['snapshot', whole.config, '--out', join(dir, 'out'), '--input', `org=${inputSecret}`], { SEER_TEST_SECRET: envSecret }, dir);
    assert.match(short.err, /started with argv .* \*\*\* --org=\*\*\*/, 'the whole argv line is in the tail, both values masked');
    assertNoFragment(short.out + short.err, envSecret, 'the CLI output');
    assertNoFragment(short.out + short.err, inputSecret, 'the CLI output');
  });

  it('a server that echoes its argv and then answers: the snapshot and the output hold no secret', async () => {
    const { dir, config } = workspace('leak-answer');
    const r = await runBin(['snapshot', config, '--out', join(dir, 'out'), '--input', `org=${inputSecret}`], { SEER_TEST_SECRET: envSecret }, dir);
    assert.equal(r.code, 0, r.err);
    assertNoFragment(r.out + r.err, envSecret, 'the CLI output');
    for (const { file, text } of filesUnder(join(dir, 'out'))) assertNoFragment(text, envSecret, file);
  });
});

describe('a --base-url with credentials', () => {
  const token = secretOf(3, 20);
  const password = secretOf(5, 20);
  const query = secretOf(9, 20);

  it('is masked in stdout, stderr and every file of generate and judge (OpenAI-compatible and Gemini)', async () => {
    const port = await freePort();
    const urls: [string, string][] = [
      ['openai', `http://${token}@127.0.0.1:${port}/v1`],
      ['openai', `http://user:${password}@127.0.0.1:${port}/v1?key=${query}`],
      ['openai', `http://127.0.0.1:${port}/v1?api_key=${query}`],
      ['gemini', `http://user:${password}@127.0.0.1:${port}/?key=${query}`],
    ];
    const spec = join(specsDir, 'brave-search.json');
    const env = { OPENAI_API_KEY: 'sk-test-unused', GEMINI_API_KEY: 'AIza-test-unused' };
    // The calls fail (credentials in a URL are refused, or nothing listens): each run ends on its
    // network retries. The runs go in parallel: they mostly wait.
    const runs = await Promise.all(
      urls.map(async ([provider, url]) => {
        const dir = tempDir();
        const out = join(dir, 'harness');
        const offline = join(dir, 'offline');
        const [generated, judged] = await Promise.all([
          runBin(['generate', spec, '--provider', provider, '--model', 'm', '--base-url', url, '--out', out, '--simple', '1', '--complex', '0'], env, dir),
          (async () => {
            const made = await runBin(['generate', spec, '--out', offline, '--simple', '1', '--complex', '0'], env, dir);
            assert.equal(made.code, 0, made.err);
            return runBin(['judge', offline, '--judge', `${provider}:m`, '--base-url', url], env, dir);
          })(),
        ]);
        return { url, generated, judged, files: [...filesUnder(out), ...filesUnder(offline)] };
      }),
    );
    for (const { url, generated, judged, files } of runs) {
      assert.notEqual(generated.code, 0, `${url}: the generation cannot succeed`);
      assert.match(generated.err, /cannot reach the (OpenAI-compatible|Gemini) endpoint http:\/\/127\.0\.0\.1/, generated.err);
      assert.ok(
        files.some((f) => f.file.endsWith('manifest.json')),
        'a manifest was written',
      );
      for (const secret of [token, password, query]) {
        assertNoFragment(generated.out + generated.err, secret, `generate's output for ${url}`);
        assertNoFragment(judged.out + judged.err, secret, `judge's output for ${url}`);
        for (const { file, text } of files) assertNoFragment(text, secret, file);
      }
    }
  });
});
