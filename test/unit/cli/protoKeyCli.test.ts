/**
 * A property named `__proto__` is an ordinary key through every command: a spec whose tool has
 * three parameters, one of them `__proto__` (required). JSON parsers that assign keys, and zod,
 * drop it; before the fix `inspect` counted 2 of 3 parameters, `generate` skipped the tool
 * ("unknown parameter '__proto__'"), and `judge` wrote records back without the argument.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli as runCli } from '../cliRunner';
import { startFakeGemini } from '../../fakes/fakeGemini';
import { schemaOnlyModel } from '../../fakes/schemaOnly';

let dir: string;
const SPEC = {
  name: 'proto-server',
  tools: [
    {
      name: 'set_entry',
      description: 'Store one entry of a registry under its key, with its prototype name and a value.',
      inputSchema: {
        type: 'object',
        properties: {
          key: { type: 'string', description: 'Registry key of the entry, e.g. "users:42".' },
          value: { type: 'string', description: 'Text stored under the key.' },
        },
        required: ['key', '__proto__', 'value'],
        additionalProperties: false,
      },
    },
  ],
};
// `__proto__` is added as text: in an object literal `__proto__:` sets the prototype, not a key.
const specText = JSON.stringify(SPEC, null, 2).replace(
  '"properties": {',
  '"properties": {\n "__proto__": { "type": "string", "description": "Name of the prototype entry this one inherits from." },',
);

const cli = (args: string[]): ReturnType<typeof runCli> => runCli(args, dir, { PATH: process.env.PATH });

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-seer-proto-'));
  await writeFile(join(dir, 'spec.json'), specText);
  // The fixture itself: native JSON.parse keeps the key as an own property.
  const reread = JSON.parse(await readFile(join(dir, 'spec.json'), 'utf8')) as typeof SPEC;
  assert.ok(Object.hasOwn(reread.tools[0]!.inputSchema.properties, '__proto__'));
  assert.equal(Object.keys(reread.tools[0]!.inputSchema.properties).length, 3);
});
after(() => rm(dir, { recursive: true, force: true }));

const ownProtoArgument = (record: { expected_tools: { arguments: Record<string, unknown> }[] }): boolean =>
  record.expected_tools.every((c) => Object.hasOwn(c.arguments, '__proto__') && typeof c.arguments['__proto__'] === 'string');

test('inspect counts the three parameters', async () => {
  const r = await cli(['inspect', 'spec.json', '--json']);
  const out = JSON.parse(r.out) as { servers: { meanParams: number; maxParams: number; findings: { code: string }[] }[] };
  assert.equal(out.servers[0]!.maxParams, 3);
  assert.ok(!out.servers[0]!.findings.some((f) => f.code === 'broken-schema'), JSON.stringify(out.servers[0]!.findings));
});

test('generate covers the tool, judge keeps the argument on rewrite, report and export show it', async () => {
  const g = await cli(['generate', 'spec.json', '--out', 'h', '--simple', '2', '--complex', '1']);
  assert.equal(g.code, 0, g.out + g.err);
  assert.match(g.out, /tool coverage: 1\/1/);
  const recordsDir = join(dir, 'h', 'records');
  const read = async (): Promise<{ id: string; expected_tools: { arguments: Record<string, unknown> }[]; judgments?: unknown }[]> =>
    Promise.all((await readdir(recordsDir)).map(async (n) => JSON.parse(await readFile(join(recordsDir, n), 'utf8')) as never));
  const generated = await read();
  assert.ok(generated.length >= 3);
  for (const r of generated) assert.ok(ownProtoArgument(r), `${r.id}: ${JSON.stringify(r.expected_tools)}`);

  const j = await cli(['judge', 'h', '--json']);
  assert.equal(j.code, 0, j.out + j.err);
  const summary = JSON.parse(j.out) as { judges: { meanExact: number }[] };
  // The exact checks saw the required `__proto__` argument: nothing missing, nothing unknown.
  assert.equal(summary.judges[0]!.meanExact, 1);
  const judged = await read();
  for (const r of judged) {
    assert.ok(r.judgments, r.id);
    assert.ok(ownProtoArgument(r), `${r.id} lost its argument on rewrite`);
  }

  const rep = await cli(['report', 'h', '--format', 'json', '--resamples', '200']);
  assert.equal(rep.code, 0, rep.err);
  const model = JSON.parse(rep.out) as { judges: { servers: { records: number; exact: { mean: number } }[] }[] };
  assert.equal(model.judges[0]!.servers[0]!.records, generated.length);
  assert.equal(model.judges[0]!.servers[0]!.exact.mean, 1);

  const exp = await cli(['export', 'h']);
  assert.equal(exp.code, 0, exp.err);
  const exported = JSON.parse(exp.out) as { tools: { inputSchema: { properties: Record<string, unknown> } }[] };
  assert.deepEqual(Object.keys(exported.tools[0]!.inputSchema.properties).sort(), ['__proto__', 'key', 'value']);
});

test('an LLM run keeps the argument: the response schema asks for it, the reply parser and the record keep it', async () => {
  const fake = await startFakeGemini({ apiKey: 'test-key' });
  try {
    fake.respondWith(schemaOnlyModel);
    const g = await runCli(
      ['generate', 'spec.json', '--provider', 'gemini', '--base-url', fake.url, '--out', 'llm', '--simple', '2', '--complex', '0', '--json'],
      dir,
      {
        PATH: process.env.PATH,
        GEMINI_API_KEY: 'test-key',
      },
    );
    assert.equal(g.code, 0, g.out + g.err);
    // The scenario request's response schema declares the parameter as an own property.
    const asked = fake.requests.some((r) => JSON.stringify(r.jsonSchema ?? {}).includes('"__proto__"'));
    assert.ok(asked, 'no request asked for the __proto__ argument');
    const recordsDir = join(dir, 'llm', 'records');
    const records = await Promise.all(
      (await readdir(recordsDir)).map(
        async (n) => JSON.parse(await readFile(join(recordsDir, n), 'utf8')) as { id: string; expected_tools: { arguments: Record<string, unknown> }[] },
      ),
    );
    assert.ok(records.length >= 2);
    for (const r of records) assert.ok(ownProtoArgument(r), `${r.id}: ${JSON.stringify(r.expected_tools)}`);
  } finally {
    await fake.close();
  }
});
