/**
 * `agent-seer generate --only-stale`: after the spec changed, only the records of changed or
 * removed tools are made again (against the fake Gemini, its requests counted); the others stay
 * byte-identical, and the manifest says what changed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run } from '../../../src/cli/main';
import { specHash } from '../../../src/core/harness/hash';
import { readHarness } from '../../../src/core/harness/store';
import { loadSpecText } from '../../../src/core/spec/snapshot';
import type { Spec } from '../../../src/core/spec/model';
import { startFakeGemini } from '../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../fakes/fakeLlmServer';
import { capturingIo, type CapturingIo } from '../cliRunner';
import { specsDir } from '../fixturePaths';
import { createResponder } from '../pipelineResponder';

const io = (cwd: string): CapturingIo => capturingIo(cwd, { GEMINI_API_KEY: 'test-key' });

async function recordTexts(dir: string): Promise<Map<string, string>> {
  const names = (await readdir(join(dir, 'records'))).sort();
  return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, 'records', n), 'utf8')] as const)));
}

interface Summary {
  status: string;
  records: number;
  llm: { calls: number };
  drift?: { added: string[]; removed: string[]; changed: { name: string; parts: string[] }[]; kept: number; stale: number };
}

describe('agent-seer generate --only-stale', () => {
  let root: string;
  let fake: FakeLlmServer;
  let spec: Spec;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-only-stale-'));
    const file = join(specsDir, 'slack.json');
    const load = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(load.ok);
    spec = load.spec;
    fake = await startFakeGemini({ apiKey: 'test-key' });
  });
  after(async () => {
    await fake.close();
    await rm(root, { recursive: true, force: true });
  });

  const generate = async (specFile: string, extra: string[]): Promise<{ code: number; summary: Summary; requests: number; stderr: string }> => {
    const before = fake.requests.length;
    const c = io(root);
    const argv = ['generate', specFile, '--provider', 'gemini', '--base-url', fake.url, '--out', 'h', '--json', ...extra];
    const code = await run(argv, c);
    return { code, summary: JSON.parse(c.stdout.join('\n') || '{}') as Summary, requests: fake.requests.length - before, stderr: c.stderr.join('\n') };
  };

  it('regenerates the records of a changed and a removed tool, adds one for a new tool, keeps the rest byte-identical', async () => {
    const v1 = join(root, 'v1.json');
    await writeFile(v1, JSON.stringify({ server: spec.server, tools: spec.tools }));
    fake.respondWith(createResponder({ spec }).respond);
    const full = await generate(v1, ['--simple', '4', '--complex', '3']);
    assert.equal(full.code, 0, full.stderr);
    const h = join(root, 'h');
    const first = await readHarness(h);
    const uses = (r: (typeof first.records)[number], name: string): boolean => r.expected_tools.some((c) => c.name === name);

    // The same spec again: nothing is stale, and not one request is sent.
    const untouched = await recordTexts(h);
    const same = await generate(v1, ['--only-stale']);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.requests, 0);
    assert.equal(same.summary.llm.calls, 0);
    assert.deepEqual(await recordTexts(h), untouched);

    // v2: one tool used by some records (not all) changes its description, one is removed, one is new.
    const counts = new Map(spec.tools.map((t) => [t.name, first.records.filter((r) => uses(r, t.name)).length]));
    const used = spec.tools.filter((t) => (counts.get(t.name) ?? 0) > 0).map((t) => t.name);
    const [changed, removed] = used;
    assert.ok(changed && removed, 'two tools with records');
    const added = {
      name: 'slack_archive_channel',
      description: 'Archive a channel.',
      inputSchema: { type: 'object', properties: { channel_id: { type: 'string' } }, required: ['channel_id'] },
    };
    const v2Tools = [
      ...spec.tools.filter((t) => t.name !== removed).map((t) => (t.name === changed ? { ...t, description: `${t.description ?? ''} Edited.` } : t)),
      added,
    ];
    const v2 = join(root, 'v2.json');
    await writeFile(v2, JSON.stringify({ server: spec.server, tools: v2Tools }));
    const v2Spec = { ...spec, tools: v2Tools };
    fake.respondWith(createResponder({ spec: v2Spec }).respond);

    const beforeTexts = await recordTexts(h);
    const stale = first.records.filter((r) => uses(r, changed) || uses(r, removed));
    const kept = first.records.filter((r) => !stale.includes(r));
    assert.ok(stale.length > 0 && kept.length > 0, 'both kinds present');
    const startedAt = fake.requests.length;
    const r = await generate(v2, ['--only-stale']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /spec changes: 1 added \(slack_archive_channel\), 1 removed \(.+\), 1 changed \(.+: description\)/);
    assert.deepEqual(r.summary.drift?.added, ['slack_archive_channel']);
    assert.deepEqual(r.summary.drift?.removed, [removed]);
    assert.deepEqual(r.summary.drift?.changed, [{ name: changed, parts: ['description'] }]);
    assert.equal(r.summary.drift?.kept, kept.length);
    assert.equal(r.summary.drift?.stale, stale.length);

    // Every request was about the changed and the added tool only: the prompts name no other tool.
    assert.equal(r.requests, r.summary.llm.calls);
    assert.ok(r.requests > 0 && r.requests < full.requests, `${r.requests} requests, the full run made ${full.requests}`);
    const subJson = JSON.stringify(v2Tools.filter((t) => t.name === changed || t.name === added.name));
    const others = spec.tools.map((t) => t.name).filter((n) => n !== changed && !subJson.includes(n));
    for (const req of fake.requests.slice(startedAt)) {
      const text = JSON.stringify(req.messages) + (req.system ?? '');
      for (const n of others) assert.ok(!text.includes(n), `a request named the unchanged tool ${n}`);
    }

    // Kept records: the very same bytes; stale ones gone; new ones only use the changed and added tools.
    const afterTexts = await recordTexts(h);
    const second = await readHarness(h);
    assert.deepEqual(second.problems, []);
    for (const k of kept) {
      const name = [...beforeTexts.keys()].find((n) => beforeTexts.get(n)!.includes(JSON.stringify(k.id)));
      assert.ok(name, k.id);
      assert.equal(afterTexts.get(name), beforeTexts.get(name), `${name} was rewritten`);
    }
    for (const s of stale) assert.ok(!second.records.some((x) => x.id === s.id), `stale ${s.id} still there`);
    const fresh = second.records.filter((x) => !kept.some((k) => k.id === x.id));
    assert.ok(fresh.length > 0);
    for (const f of fresh) for (const c of f.expected_tools) assert.ok(c.name === changed || c.name === added.name, `${f.id} calls ${c.name}`);
    assert.ok(
      fresh.some((f) => uses(f, added.name)),
      'the added tool got a scenario',
    );

    const m = second.manifest!;
    assert.equal(m.status, 'complete');
    assert.equal(m.spec.hash, specHash(v2Spec));
    assert.deepEqual(
      m.recordIds.slice(0, kept.length),
      first.manifest!.recordIds.filter((id) => kept.some((k) => k.id === id)),
      'kept records first, in their order',
    );
    assert.equal(m.recordIds.length, kept.length + fresh.length);
    assert.deepEqual(m.drift, {
      fromHash: first.manifest!.spec.hash,
      added: ['slack_archive_channel'],
      removed: [removed],
      changed: [{ name: changed, parts: ['description'] }],
      kept: kept.length,
      regenerated: stale.length,
      written: fresh.length,
    });
    assert.equal(m.counts.records, m.recordIds.length);
    assert.equal(JSON.parse(await readFile(join(h, 'spec.json'), 'utf8')).tools.length, v2Tools.length, 'spec.json is the new snapshot');

    // And once more: nothing is stale now, so nothing is asked.
    const again = await generate(v2, ['--only-stale']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.requests, 0);
    assert.deepEqual(await recordTexts(h), afterTexts);

    // The report shows what changed.
    const rep = io(root);
    assert.equal(await run(['judge', 'h'], io(root)), 0);
    assert.equal(await run(['report', 'h', '--format', 'md'], rep), 0, rep.stderr.join('\n'));
    const md = rep.stdout.join('\n');
    assert.match(md, /## Spec changes/);
    const esc = (x: string): string => x.replace(/_/g, '\\_');
    const row = `| Slack MCP Server | ${esc('slack_archive_channel')} | ${esc(removed)} | ${esc(changed)} (description) | ${kept.length} | ${stale.length} | ${fresh.length} |`;
    assert.ok(md.includes(row), row);
  });

  it('bad input: no harness in --out, another spec’s harness, or with --force: exit 2, one line', async () => {
    const v1 = join(root, 'other.json');
    await writeFile(v1, JSON.stringify({ server: spec.server, tools: spec.tools }));
    const none = io(root);
    assert.equal(await run(['generate', v1, '--out', 'nothing-here', '--only-stale'], none), 2);
    assert.match(none.stderr.at(-1)!, /^agent-seer: .*nothing-here holds no harness \(no manifest\.json\): generate one first$/);
    const forced = io(root);
    assert.equal(await run(['generate', v1, '--out', 'h', '--only-stale', '--force'], forced), 2);
    assert.match(forced.stderr.at(-1)!, /cannot be combined with --force/);
  });
});
