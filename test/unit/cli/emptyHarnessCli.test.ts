/**
 * An empty harness is not a success: a spec whose every tool is skipped (here a `$ref` cycle with
 * no base case, one of the hostile specs of issue 18) once gave "Wrote 0 records … (complete)"
 * and exit 0, and `judge` and `report` of it exited 0 too. Now the run's status is `empty`, with
 * the reason in the manifest and the summary, and each command exits 5.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EXIT, worstExit } from '../../../src/cli/errors';
import { emptyTally, runVerdict } from '../../../src/core/pipeline/runHealth';
import { cli as runCli } from '../cliRunner';
import { specsDir } from '../fixturePaths';

const CYCLE = {
  name: 'cycle',
  tools: [
    {
      name: 'make_node',
      description: 'Create a node whose child is required, and whose child needs a child in turn.',
      inputSchema: {
        type: 'object',
        properties: { node: { $ref: '#/$defs/Node' } },
        required: ['node'],
        $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' } }, required: ['child'] } },
      },
    },
  ],
};

let dir: string;
const cli = (args: string[]): ReturnType<typeof runCli> => runCli(args, dir, { PATH: process.env.PATH });

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-seer-empty-'));
  await writeFile(join(dir, 'cycle.json'), JSON.stringify(CYCLE));
});
after(() => rm(dir, { recursive: true, force: true }));

test('exit 5 is its own code, ranked in a corpus above partial and below pending, failed and bad input', () => {
  assert.equal(EXIT.empty, 5);
  assert.equal(new Set(Object.values(EXIT)).size, Object.values(EXIT).length);
  assert.equal(worstExit([EXIT.ok, EXIT.empty]), EXIT.empty);
  assert.equal(worstExit([EXIT.partial, EXIT.empty]), EXIT.empty);
  assert.equal(worstExit([EXIT.empty, EXIT.pending]), EXIT.pending);
  assert.equal(worstExit([EXIT.empty, EXIT.failed]), EXIT.failed);
});

test('an LLM run that ended well with 0 records is empty, with its reason', () => {
  const v = runVerdict(emptyTally(), { records: 0, emptyReason: '0 records: every tool was skipped' });
  assert.deepEqual(v, { status: 'empty', reason: '0 records: every tool was skipped' });
  assert.equal(runVerdict(emptyTally(), { records: 3 }).status, 'complete');
});

test('generate, judge and report of a spec whose every tool is skipped exit 5 and say why', async () => {
  const g = await cli(['generate', 'cycle.json', '--out', 'h']);
  assert.equal(g.code, EXIT.empty, g.out + g.err);
  assert.match(g.out, /Wrote 0 records in h \(empty;/);
  assert.match(g.out, /Empty: 0 records: every tool was skipped \(1; make_node: .*\) — see inspect/);
  const manifest = JSON.parse(await readFile(join(dir, 'h', 'manifest.json'), 'utf8')) as { status: string; error?: string };
  assert.equal(manifest.status, 'empty');
  assert.match(manifest.error ?? '', /every tool was skipped/);

  const gj = await cli(['generate', 'cycle.json', '--out', 'h2', '--json']);
  assert.equal(gj.code, EXIT.empty);
  assert.equal((JSON.parse(gj.out) as { status: string }).status, 'empty');

  const j = await cli(['judge', 'h', '--json']);
  assert.equal(j.code, EXIT.empty, j.err);
  const js = JSON.parse(j.out) as { status: string; exitCode: number; error: string; records: number };
  assert.equal(js.status, 'empty');
  assert.equal(js.exitCode, EXIT.empty);
  assert.equal(js.records, 0);
  assert.match(js.error, /^0 records to judge: every tool was skipped/);
  const jt = await cli(['judge', 'h']);
  assert.equal(jt.code, EXIT.empty);
  assert.match(jt.err, /h: 0 records to judge: every tool was skipped.*not a success \(exit 5\)/);

  const r = await cli(['report', 'h', '--format', 'json', '--resamples', '100']);
  assert.equal(r.code, EXIT.empty, r.err);
  assert.match(r.err, /nothing to report: 0 records in h \(exit 5\)/);
  assert.match(r.err, /warning: h: 0 records \(every tool was skipped/);
});

test('a corpus with one empty spec exits 5 and says which', async () => {
  const c = await cli(['generate', 'cycle.json', join(specsDir, 'time-official.json'), '--out', 'corpus', '--simple', '1', '--complex', '1']);
  assert.equal(c.code, EXIT.empty, c.out + c.err);
  assert.match(c.out, /cycle: empty \(0 records: every tool was skipped/);
  assert.match(c.out, /1 complete, 1 empty/);
  assert.match(c.out, /Empty: 1 spec gave 0 records/);
});
