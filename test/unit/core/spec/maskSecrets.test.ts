/** The masking rules for secrets in printed command lines, URLs and server stderr (docs/security.md, "Secrets in output"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  maskArgs,
  maskSecretText,
  maskUrl,
  maskUrlCredentials,
  SecretStreamMasker,
  urlSecrets,
  urlWithoutCredentials,
} from '../../../../src/core/spec/maskSecrets';
import { MaskedTail } from '../../../../src/core/spec/live/tailBuffer';

test('maskArgs masks values of secret flags, secret KEY=value args, URL secrets and token literals', () => {
  const cases: [string[], string[]][] = [
    [
      ['--token', 'abc123'],
      ['--token', '***'],
    ],
    [
      ['--api-key=abc123', '--port', '8080'],
      ['--api-key=***', '--port', '8080'],
    ],
    [
      ['--password', 'p4ss', '--verbose'],
      ['--password', '***', '--verbose'],
    ],
    [
      ['--client-secret', 'xyz', 'run'],
      ['--client-secret', '***', 'run'],
    ],
    [
      ['-k', 'abc123', '-p', '3000'],
      ['-k', '***', '-p', '3000'],
    ],
    [
      ['--token', '--verbose'],
      ['--token', '--verbose'],
    ], // a flag, not a value
    [
      ['GITHUB_TOKEN=ghx', 'LOG_LEVEL=debug'],
      ['GITHUB_TOKEN=***', 'LOG_LEVEL=debug'],
    ],
    [['https://user:pw@example.com/mcp?api_key=k1&x=1'], ['https://user:***@example.com/mcp?api_key=***&x=1']],
    [['https://ghp_abcdefghijklmnopqrstuvwx@github.com/o/r'], ['https://***@github.com/o/r']],
    [
      ['--header', 'Authorization: Bearer abcdefghijkl'],
      ['--header', 'Authorization: Bearer ***'],
    ],
    [
      ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'sk-proj-abcdefghijklmnopqrst', 'xoxb-1234567890-abcdef', 'AIzaSyA1234567890abcdefghijklmnopqrstu'],
      ['***', '***', '***', '***'],
    ],
    [
      ['-y', '@modelcontextprotocol/server-github', '/home/me/project'],
      ['-y', '@modelcontextprotocol/server-github', '/home/me/project'],
    ],
    [
      ['--author', 'me', '--keyboard', 'us'],
      ['--author', 'me', '--keyboard', 'us'],
    ],
  ];
  for (const [args, expected] of cases) assert.deepEqual(maskArgs(args), expected, args.join(' '));
});

test('variable references only name a secret and stay visible', () => {
  assert.deepEqual(maskArgs(['--token', '${input:token}', '--api-key=${env:API_KEY}', 'TOKEN=${GITHUB_TOKEN}', 'KEY={env:KEY}']), [
    '--token',
    '${input:token}',
    '--api-key=${env:API_KEY}',
    'TOKEN=${GITHUB_TOKEN}',
    'KEY={env:KEY}',
  ]);
  assert.equal(maskUrl('https://api.example.com/mcp?token=${input:tok}'), 'https://api.example.com/mcp?token=${input:tok}');
});

test('maskUrl masks secret-looking query parameters and user info, nothing else', () => {
  assert.equal(maskUrl('https://mcp.example.com/sse?key=abc&sig=def&session=s1&limit=5'), 'https://mcp.example.com/sse?key=***&sig=***&session=***&limit=5');
  assert.equal(maskUrl('http://127.0.0.1:1/mcp'), 'http://127.0.0.1:1/mcp');
});

test('maskSecretText masks the known values (4+ characters) and token shapes in free text', () => {
  assert.equal(maskSecretText('auth failed for s3cr3t-value (debug=1)', ['s3cr3t-value', '1']), 'auth failed for *** (debug=1)');
  assert.equal(maskSecretText('using GITHUB_TOKEN=abc and https://h/x?access_token=zz'), 'using GITHUB_TOKEN=*** and https://h/x?access_token=***');
  assert.equal(maskSecretText('fatal: GITHUB_TOKEN is not set'), 'fatal: GITHUB_TOKEN is not set');
});

/** Fails when `text` holds 4 consecutive characters of `secret`. */
function assertNoFragment(text: string, secret: string, where: string): void {
  for (let i = 0; i + 4 <= secret.length; i++) assert.ok(!text.includes(secret.slice(i, i + 4)), `${where}: "${secret.slice(i, i + 4)}" (at ${i}) leaked`);
}

/** A deterministic pseudo-random generator (the same chunkings every run). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
}

test('a masked stream cut anywhere holds no fragment of a known value or of a shaped secret, however it was chunked', () => {
  const known = 'K7Q2M9V4R1T8W3Y6Z5P0'; // 20 characters, from the config
  const bigKnown = 'B'.repeat(2) + 'Q9'.repeat(1500); // 3,002 characters: longer than the shape holdback
  const github = 'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const pieces = [
    'starting server\n',
    `argv: node server.js ${known} --x\n`,
    'y'.repeat(5000),
    known,
    'z'.repeat(7000),
    `\nusing GITHUB_TOKEN=${github}\n`,
    'w'.repeat(3000),
    bigKnown,
    `\nAuthorization: Bearer ${known}abc\n`,
    'v'.repeat(9000),
    known,
  ];
  const stream = pieces.join('');
  const random = lcg(42);
  for (let round = 0; round < 30; round++) {
    const tail = new MaskedTail(4096, [known, bigKnown]);
    const seen: string[] = [];
    for (let at = 0; at < stream.length;) {
      const size = 1 + Math.floor(random() * (round % 3 === 0 ? 20 : 3000));
      tail.push(Buffer.from(stream.slice(at, at + size)));
      at += size;
      // Looked at while the stream goes on: a value still being written is masked too.
      if (random() < 0.05) seen.push(tail.text() ?? '');
    }
    seen.push(tail.text() ?? '');
    for (const text of seen) {
      assert.ok(Buffer.byteLength(text) <= 4096, 'the tail is bounded');
      assertNoFragment(text, known, `round ${round}`);
      assertNoFragment(text, bigKnown.slice(0, 40), `round ${round}`);
      assertNoFragment(text, github, `round ${round}`);
    }
    assert.match(seen.at(-1) ?? '', /v{3000,}\*\*\*$/, 'the end of the stream, its last value masked');
  }
});

test('a stream masked in pieces equals the whole text masked at once (away from the cut)', () => {
  const known = ['s3cr3t-value-1234', 'another-secret-9876'];
  const text = Array.from({ length: 400 }, (_, i) => `line ${i}: ${i % 7 === 0 ? known[i % 2] : 'ok'} TOKEN=${i % 5 === 0 ? 'abc' : ''}`).join('\n');
  const masker = new SecretStreamMasker(known);
  let out = '';
  const random = lcg(7);
  for (let at = 0; at < text.length;) {
    const size = 1 + Math.floor(random() * 500);
    out += masker.push(text.slice(at, at + size));
    at += size;
  }
  out += masker.pendingView();
  assert.equal(out, maskSecretText(text, known));
});

test('urlSecrets finds user info and secret parameters as written and decoded; urlWithoutCredentials drops them', () => {
  assert.deepEqual(urlSecrets('http://TOKEN123@host:1/v1'), ['TOKEN123']);
  assert.deepEqual(urlSecrets('https://us%40er:p%40ss@host/x?key=k%2B1&limit=5#sig=zz'), ['us%40er', 'us@er', 'p%40ss', 'p@ss', 'k%2B1', 'k+1', 'zz']);
  assert.deepEqual(urlSecrets('https://host/x?token=${env:T}'), []);
  assert.deepEqual(urlSecrets(undefined), []);
  assert.equal(urlWithoutCredentials('https://u:p@host:8/v1?key=k#f'), 'https://host:8/v1');
  assert.equal(maskUrlCredentials('fetch http://u:pw@h/v1?api_key=zz&x=1 failed'), 'fetch http://u:***@h/v1?api_key=***&x=1 failed');
});
