/**
 * Harnesses an agent can fairly be tested on (issue 20), measured with the judge's own checks on
 * offline harnesses of five fixture specs of different kinds: a chat server (Slack), a workspace of
 * records (Notion; the fixtures hold no CRM, and Notion's pages, databases and properties are the
 * closest), a cloud API with 100+ tools (Twilio, 197), a file server and a git server.
 *
 * - determinacy ≥ 0.98: of the argument values grounded in the user's words or an earlier output,
 *   the share the words and the outputs shown pin down (`checks/determinacy.ts`), both views;
 * - at most 5% of prompts recite a tool description (7 consecutive words, `checks/recitation.ts`);
 * - every call about one thing answers about that thing (no `read-mismatch`, no output
 *   contradicting its call);
 * - the judge flags planted defects (an item no longer identified, a read answering with another
 *   id, a number reused from another call's words) with recall 1.0, and nothing on the rest.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkDeterminacy, isOwnIdParam } from '../../../../src/core/checks/determinacy';
import { containsWords, numbersIn, schemaKeyword, valueClass } from '../../../../src/core/checks/grounding';
import { recites, wordRuns } from '../../../../src/core/checks/recitation';
import { findTool, validateToolArguments } from '../../../../src/core/checks/validateCall';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { judgeRecord } from '../../../../src/core/judge';
import type { StoredJudgment } from '../../../../src/core/judge/schemas';
import { generateOffline } from '../../../../src/core/pipeline/offline';
import type { Spec } from '../../../../src/core/spec/model';
import { isRecord } from '../../../../src/core/util/isRecord';
import { loadFixtureSpec } from '../../fixturePaths';

const SPECS = ['slack.json', 'notion.json', 'twilio-api-v2010.json', 'filesystem.json', 'git-official.json'];

/** The held-out runs were seed 6, 10 + 10. */
const corpus = SPECS.map((file) => {
  const spec = loadFixtureSpec(file);
  return { file, spec, records: generateOffline(spec, { seed: 6, simple: 10, complex: 10 }).records };
});

/** The two views a judge reads: the prompt with every call, and the conversation. */
function views(spec: Spec, r: HarnessRecord) {
  const calls = r.expected_tools;
  const outputs = calls.map((_, i) => r.mock_outputs[i]?.output);
  const out = [{ calls, outputs, turns: [{ prompt: r.prompt, calls: calls.map((_, i) => i) }], spec }];
  if (r.conversation.length) out.push({ calls, outputs, turns: r.conversation.map((t) => ({ prompt: t.prompt, calls: t.calls })), spec });
  return out;
}

test('offline harnesses are fair tests: determinacy ≥ 0.98, ≤ 5% of prompts recite a description, every read of X answers about X', (t) => {
  for (const { file, spec, records } of corpus) {
    let checked = 0;
    let determined = 0;
    let fromLists = 0;
    let identified = 0;
    const contradictions: string[] = [];
    for (const r of records) {
      for (const input of views(spec, r)) {
        const d = checkDeterminacy(input);
        checked += d.checked;
        determined += d.determined;
        fromLists += d.fromLists;
        identified += d.identified;
        for (const f of d.findings) if (f.kind === 'read-mismatch' || f.kind === 'output-contradicts-call') contradictions.push(`${r.id}: ${f.message}`);
      }
    }
    const runs = wordRuns(spec.tools.map((tool) => tool.description));
    const prompts = records.flatMap((r) => [r.prompt, ...r.conversation.map((c) => c.prompt)]);
    const reciting = prompts.filter((p) => recites(p, runs) !== undefined);
    const rate = determined / checked;
    t.diagnostic(
      `${file}: ${records.length} records, determinacy ${rate.toFixed(3)} (${determined}/${checked}), list picks identified ${identified}/${fromLists}, reciting prompts ${reciting.length}/${prompts.length}`,
    );
    assert.ok(checked > 0, file);
    assert.ok(rate >= 0.98, `${file}: determinacy ${rate.toFixed(3)}`);
    assert.ok(
      reciting.length <= 0.05 * prompts.length,
      `${file}: ${reciting.length} of ${prompts.length} prompts recite a description: ${reciting.slice(0, 2).join(' | ')}`,
    );
    assert.deepEqual(contradictions, [], file);
  }
  // The chat server's chains go through its listings: the picks are really exercised.
  const slack = corpus.find((c) => c.file === 'slack.json')!;
  const picks = slack.records.reduce((n, r) => n + checkDeterminacy(views(slack.spec, r)[0]!).fromLists, 0);
  assert.ok(picks >= 10, `slack: ${picks} values from lists`);
});

/** Every 'undetermined' finding of a stored judgment (both views): call, parameter and kind. */
function undetermined(j: StoredJudgment): { callIndex: number | null; param: string | null; reason: string }[] {
  return [...j.findings, ...(j.conversation?.findings ?? [])].filter((f) => f.kind === 'undetermined');
}

/** Replaces every string leaf equal to `from` (or number, for a number) in a JSON value. */
function replaceLeaf(v: unknown, from: string | number, to: string | number): unknown {
  if (v === from) return to;
  if (Array.isArray(v)) return v.map((x) => replaceLeaf(x, from, to));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replaceLeaf(x, from, to)]));
  return v;
}

/**
 * Plants an item the user no longer identifies: every field the user states of a listed item
 * whose value (one the user does not state) a later call takes, renamed.
 */
function plantUnidentified(r: HarnessRecord): { record: HarnessRecord; call: number } | undefined {
  const userText = [r.prompt, ...r.conversation.map((c) => c.prompt)].join('\n');
  for (const [i, m] of r.mock_outputs.entries()) {
    const lists: unknown[][] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) {
        if (v.length >= 2 && v.every(isRecord)) lists.push(v);
        v.forEach(walk);
      } else if (isRecord(v)) Object.values(v).forEach(walk);
    };
    walk(m.output);
    for (const list of lists) {
      for (const item of list as Record<string, unknown>[]) {
        const stated = Object.values(item).filter((v): v is string => typeof v === 'string' && v.length >= 3 && containsWords(userText, v));
        if (!stated.length) continue;
        const taken = r.expected_tools.findIndex(
          (c, j) =>
            j > i &&
            Object.values(c.arguments).some(
              (a) => (typeof a === 'string' || typeof a === 'number') && Object.values(item).includes(a) && !containsWords(userText, String(a)),
            ),
        );
        if (taken < 0) continue;
        const copy = structuredClone(r);
        let output = copy.mock_outputs[i]!.output;
        stated.forEach((v, n) => (output = replaceLeaf(output, v, `zz-planted-unnamed-${n}`)));
        copy.mock_outputs[i]!.output = output;
        return { record: copy, call: taken };
      }
    }
  }
  return undefined;
}

/** Plants a read that answers about another thing: the call's own identifier replaced in its output. */
function plantOtherRead(r: HarnessRecord): { record: HarnessRecord; call: number } | undefined {
  for (const [i, c] of r.expected_tools.entries()) {
    for (const [param, v] of Object.entries(c.arguments)) {
      if ((typeof v !== 'string' && typeof v !== 'number') || !isOwnIdParam(c.name, param) || valueClass(param, v) !== 'id') continue;
      const output = r.mock_outputs[i]?.output;
      if (!JSON.stringify(output).includes(JSON.stringify(v))) continue;
      const copy = structuredClone(r);
      copy.mock_outputs[i]!.output = replaceLeaf(output, v, typeof v === 'number' ? v + 7 : `${v.slice(0, 2)}zzplanted${v.length}`);
      return { record: copy, call: i };
    }
  }
  return undefined;
}

const LIMIT = /^(limit|page_?size|pagesize|per_?page|max_?results|count)$/i;

/** Plants a number said for one call into a later call that the user never gave it to. */
function plantReused(spec: Spec, r: HarnessRecord): { record: HarnessRecord; call: number } | undefined {
  for (const [a, ca] of r.expected_tools.entries()) {
    for (const [p, v] of Object.entries(ca.arguments)) {
      if (typeof v !== 'number' || !LIMIT.test(p) || numbersIn(r.prompt, true).filter((n) => n === v).length !== 1) continue;
      for (let b = a + 1; b < r.expected_tools.length; b++) {
        const cb = r.expected_tools[b]!;
        const tool = findTool(spec, cb.name);
        const props = isRecord(tool?.inputSchema) && isRecord(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
        const q = Object.keys(props).find((k) => LIMIT.test(k) && !Object.hasOwn(cb.arguments, k));
        if (!tool || !q || schemaKeyword(tool.inputSchema, q, v) !== undefined) continue;
        const args = { ...cb.arguments, [q]: v };
        if (!validateToolArguments(tool, args).ok) continue;
        const copy = structuredClone(r);
        copy.expected_tools[b]!.arguments = args;
        return { record: copy, call: b };
      }
    }
  }
  return undefined;
}

test('the judge flags planted undetermined values with recall 1.0 and nothing on the fair records', async (t) => {
  const planted = { unidentified: 0, otherRead: 0, reused: 0 };
  const missed: string[] = [];
  for (const { file, spec, records } of corpus) {
    for (const r of records) {
      const clean = await judgeRecord(r, spec);
      assert.deepEqual(undetermined(clean), [], `${file} ${r.id}: a fair record was flagged`);
      for (const [kind, plant] of [
        ['unidentified', plantUnidentified],
        ['otherRead', plantOtherRead],
        ['reused', (x: HarnessRecord) => plantReused(spec, x)],
      ] as const) {
        const p = plant(r);
        if (!p) continue;
        planted[kind]++;
        const found = undetermined(await judgeRecord(p.record, spec)).some((f) => f.callIndex === p.call);
        if (!found) missed.push(`${file} ${r.id} ${kind} at call ${p.call}`);
      }
    }
  }
  t.diagnostic(`planted: ${JSON.stringify(planted)}; missed ${missed.length}`);
  assert.deepEqual(missed, [], 'planted defects the judge did not flag');
  // Each kind was planted for real, more than once.
  assert.ok(planted.unidentified >= 10 && planted.otherRead >= 5 && planted.reused >= 3, JSON.stringify(planted));
});
