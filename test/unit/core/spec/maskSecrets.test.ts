/** The masking rules for secrets in printed command lines, URLs and server stderr (README "Secrets in output"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskArgs, maskSecretText, maskUrl } from '../../../../src/core/spec/maskSecrets';

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
