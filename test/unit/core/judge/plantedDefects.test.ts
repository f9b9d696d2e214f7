/**
 * The exact judge against planted defects, on the offline harness of every fixture spec: a value
 * replaced by one found nowhere, a chained ID replaced by another ID of the same shape, a wrong
 * type, a missing required parameter, an extra parameter. Each is planted in its own copy of a
 * record; the offline judge must flag it at its record, call and parameter, and everything it
 * flags beyond what the unplanted record already had must be at that spot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { objectShape } from '../../../../src/core/checks/jsonSchemaUtil';
import { FINDING_CLASSES, groundWorkflow, type GroundedValue } from '../../../../src/core/checks/grounding';
import { findTool, validateCall } from '../../../../src/core/checks/validateCall';
import { judgeRecord } from '../../../../src/core/judge';
import { generateOffline } from '../../../../src/core/pipeline/offline';
import type { Spec } from '../../../../src/core/spec/model';
import { isRecord } from '../../../../src/core/util/isRecord';
import { fixtureSpecFiles, loadFixtureSpec } from '../../fixturePaths';

const files = fixtureSpecFiles();

const loadSpec = loadFixtureSpec;

type Defect = 'nowhere' | 'chained' | 'type' | 'missing' | 'extra';
const DEFECTS: readonly Defect[] = ['nowhere', 'chained', 'type', 'missing', 'extra'];
/** The sub-dimension each defect must be flagged under. */
const EXPECTED_SUB: Record<Defect, string> = {
  nowhere: 'arguments.value',
  chained: 'arguments.value',
  type: 'arguments.type',
  missing: 'arguments.completeness',
  extra: 'arguments.relevancy',
};
/** A parameter name close to nothing a real schema declares. */
const EXTRA_PARAM = 'zqxv9';

/** Another identifier of the same shape: every letter and digit moved on within its kind (hex stays hex, case kept). */
function mangle(s: string): string {
  return s.replace(/[A-Za-z0-9]/g, (c) => {
    if (/\d/.test(c)) return String((Number(c) + 3) % 10);
    const lower = c.toLowerCase();
    const code = lower.charCodeAt(0) - 97;
    const next = code < 6 ? String.fromCharCode(97 + ((code + 2) % 6)) : String.fromCharCode(103 + ((code - 6 + 5) % 20));
    return c === lower ? next : next.toUpperCase();
  });
}

const clone = (r: HarnessRecord): HarnessRecord => JSON.parse(JSON.stringify(r)) as HarnessRecord;

/** Sets the value at a dotted path of a call's arguments. */
function setAt(args: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node: unknown = args;
  for (const p of parts.slice(0, -1)) node = Array.isArray(node) ? node[Number(p)] : (node as Record<string, unknown>)[p];
  const last = parts[parts.length - 1] as string;
  if (Array.isArray(node)) node[Number(last)] = value;
  else (node as Record<string, unknown>)[last] = value;
}

function groundingOf(record: HarnessRecord, spec: Spec): GroundedValue[] {
  const multi = record.conversation.length >= 2;
  return groundWorkflow({
    calls: record.expected_tools,
    outputs: record.expected_tools.map((_, i) => record.mock_outputs[i]?.output),
    turns: multi
      ? record.conversation.map((t) => ({ prompt: t.prompt, calls: t.calls }))
      : [{ prompt: record.prompt, calls: record.expected_tools.map((_, i) => i) }],
    spec,
  });
}

interface Planted {
  record: HarnessRecord;
  callIndex: number;
  param: string;
}

/** Plants one defect in the first record where it fits; undefined when no record of the harness has a place for it. */
function plant(records: readonly HarnessRecord[], spec: Spec, defect: Defect): Planted | undefined {
  for (const original of records) {
    const grounding = groundingOf(original, spec);
    for (let callIndex = 0; callIndex < original.expected_tools.length; callIndex++) {
      const call = original.expected_tools[callIndex];
      const tool = call && findTool(spec, call.name);
      if (!call || !tool || !isRecord(call.arguments) || !validateCall(spec, call).ok) continue;
      const shape = objectShape(tool.inputSchema, tool.inputSchema);
      const record = clone(original);
      const args = record.expected_tools[callIndex]?.arguments as Record<string, unknown>;
      const values = grounding.filter((g) => g.callIndex === callIndex && typeof g.value === 'string' && FINDING_CLASSES.has(g.class));
      const candidates =
        defect === 'nowhere'
          ? values.filter((g) => g.source.kind !== 'none' && g.source.kind !== 'schema')
          : defect === 'chained'
            ? values.filter((g) => g.source.kind === 'output' && (g.class === 'id' || g.class === 'path'))
            : [];
      for (const g of candidates) {
        const replaced = mangle(String(g.value));
        setAt(args, g.param, replaced);
        // The replacement must keep the call schema-valid and be found nowhere, or it is not the defect we mean.
        const found = groundingOf(record, spec).find((x) => x.callIndex === callIndex && x.param === g.param);
        if (validateCall(spec, record.expected_tools[callIndex] as typeof call).ok && found?.source.kind === 'none')
          return { record, callIndex, param: g.param };
        setAt(args, g.param, g.value);
      }
      if (defect === 'type') {
        for (const [p, v] of Object.entries(args)) {
          const schema = shape.properties[p];
          if (typeof v !== 'string' || !isRecord(schema) || schema.type !== 'string') continue;
          args[p] = true;
          return { record, callIndex, param: p };
        }
      }
      if (defect === 'missing') {
        const p = shape.required.find((r) => Object.hasOwn(args, r));
        if (p !== undefined) {
          delete args[p];
          return { record, callIndex, param: p };
        }
      }
      if (defect === 'extra' && shape.additional !== 'allowed' && !Object.hasOwn(shape.properties, EXTRA_PARAM)) {
        args[EXTRA_PARAM] = true;
        const check = validateCall(spec, record.expected_tools[callIndex] as typeof call);
        if (check.errors.length === 1 && check.errors[0]?.kind === 'unknown-param') return { record, callIndex, param: EXTRA_PARAM };
      }
    }
  }
  return undefined;
}

/** `call|param|sub` of every unwaived exact finding of the offline judge on a record. */
async function flagged(record: HarnessRecord, spec: Spec): Promise<Set<string>> {
  const j = await judgeRecord(record, spec);
  return new Set(j.findings.filter((f) => !f.waived && f.source === 'exact').map((f) => `${f.callIndex}|${f.param ?? ''}|${f.subdimension}`));
}

test('the exact judge flags every planted defect at its record, call and parameter, and nothing else, on every fixture', async (t) => {
  assert.equal(files.length, 32);
  const planted: Record<Defect, number> = { nowhere: 0, chained: 0, type: 0, missing: 0, extra: 0 };
  for (const file of files) {
    const spec = loadSpec(file);
    const { records } = generateOffline(spec, { seed: 1, simple: 4, complex: 3 });
    for (const defect of DEFECTS) {
      const p = plant(records, spec, defect);
      if (!p) continue;
      planted[defect]++;
      const original = records.find((r) => r.id === p.record.id) as HarnessRecord;
      const before = await flagged(original, spec);
      const after = await flagged(p.record, spec);
      const where = `${file} ${defect} in ${p.record.id} call ${p.callIndex} '${p.param}'`;
      assert.ok(after.has(`${p.callIndex}|${p.param}|${EXPECTED_SUB[defect]}`), `${where}: not flagged (flagged: ${[...after].join(', ') || 'nothing'})`);
      // At the planted parameter: the parameter itself or a value nested under it.
      const atSpot = (k: string): boolean => k.startsWith(`${p.callIndex}|${p.param}|`) || k.startsWith(`${p.callIndex}|${p.param}.`);
      const added = [...after].filter((k) => !before.has(k));
      assert.deepEqual(
        added.filter((k) => !atSpot(k)),
        [],
        `${where}: flagged beyond the planted defect`,
      );
      // What disappeared can only be the old findings of the parameter the defect replaced.
      const gone = [...before].filter((k) => !after.has(k) && !atSpot(k));
      assert.deepEqual(gone, [], `${where}: a finding elsewhere disappeared`);
    }
  }
  t.diagnostic(`planted per kind (specs): ${JSON.stringify(planted)}`);
  // Every defect kind found a place on most of the corpus (chained IDs need a workflow that chains).
  for (const d of DEFECTS) assert.ok(planted[d] >= (d === 'chained' ? 5 : 20), `${d} planted on only ${planted[d]} specs`);
});
