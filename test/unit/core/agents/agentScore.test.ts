/**
 * Scoring against the oracle finds exactly the defects a scripted agent injects: on five fixture
 * specs, agents that replay the oracle, change argument values, drop or add arguments, skip calls
 * or call wrong tools; the argument-level verdicts are compared with what was injected.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { passHatK, scoreScenario } from '../../../../src/core/agents/score';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { generateOffline } from '../../../../src/core/pipeline/offline';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { specsDir } from '../../fixturePaths';

const SPECS = ['git-official.json', 'slack.json', 'github-npm.json', 'notion.json', 'redis-mcp-0.5.0.json'];

async function load(name: string): Promise<{ spec: Spec; records: HarnessRecord[] }> {
  const file = join(specsDir, name);
  const l = loadSpecText(await readFile(file, 'utf8'), file);
  assert.ok(l.ok, name);
  return { spec: l.spec, records: generateOffline(l.spec, { seed: 3, simple: 10, complex: 10 }).records };
}

/** A deterministic coin from a string. */
const coin = (s: string, p: number): boolean => {
  let h = 2166136261;
  for (const ch of s) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return (h >>> 0) / 2 ** 32 < p;
};

type Injected = Map<string, 'wrong' | 'missing' | 'extra'>;

/** The oracle's calls with arguments changed, dropped or added; what was injected, per call and param. */
function mutate(record: HarnessRecord): { calls: { name: string; arguments: unknown }[]; injected: Injected[] } {
  const injected: Injected[] = [];
  const calls = record.expected_tools.map((c, i) => {
    const args = { ...c.arguments };
    const inj: Injected = new Map();
    for (const k of Object.keys(args)) {
      const key = `${record.id}/${i}/${k}`;
      if (coin(`${key}/w`, 0.25)) {
        args[k] = typeof args[k] === 'number' ? args[k] + 7 : `${JSON.stringify(args[k])}-changed`;
        inj.set(k, 'wrong');
      } else if (coin(`${key}/m`, 0.1)) {
        delete args[k];
        inj.set(k, 'missing');
      }
    }
    if (coin(`${record.id}/${i}/x`, 0.15)) {
      args.injected_extra_param = 'x';
      inj.set('injected_extra_param', 'extra');
    }
    injected.push(inj);
    return { name: c.name, arguments: args };
  });
  return { calls, injected };
}

describe('scoring trajectories against the oracle', () => {
  it('an agent replaying the oracle scores 1 everywhere', async () => {
    for (const name of SPECS) {
      const { spec, records } = await load(name);
      for (const r of records) {
        const s = scoreScenario(spec, r, r.expected_tools);
        assert.equal(s.exactCallMatch, 1, `${name} ${r.id}`);
        assert.equal(s.argumentAccuracy, 1);
        assert.equal(s.passed, true);
      }
    }
  });

  it('argument defects are found exactly where injected: precision and recall ≥ 0.95 on five specs; name match stays 1', async () => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const name of SPECS) {
      const { spec, records } = await load(name);
      for (const r of records) {
        const { calls, injected } = mutate(r);
        const s = scoreScenario(spec, r, calls);
        assert.equal(s.nameMatch, 1, `${name} ${r.id}: every tool was called`);
        s.calls.forEach((c, i) => {
          const want = injected[i]!;
          for (const [param, verdict] of Object.entries(c.arguments)) {
            if (verdict === 'ok') {
              if (want.has(param)) fn++;
              continue;
            }
            if (want.get(param) === verdict) tp++;
            else fp++;
          }
          for (const param of want.keys()) if (!(param in c.arguments)) fn++;
        });
      }
    }
    const precision = tp / (tp + fp);
    const recall = tp / (tp + fn);
    assert.ok(tp > 100, `${tp} injected defects found`);
    if (process.env.AGENT_SEER_TEST_VERBOSE) console.log({ tp, fp, fn, precision, recall });
    assert.ok(precision >= 0.95 && recall >= 0.95, `precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)} (tp ${tp}, fp ${fp}, fn ${fn})`);
  });

  it('orders agents: oracle > changed values > wrong tools and skipped calls', async () => {
    const { spec, records } = await load('git-official.json');
    const multi = records.filter((r) => r.expected_tools.length >= 2);
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const oracle = multi.map((r) => scoreScenario(spec, r, r.expected_tools));
    const changed = multi.map((r) => scoreScenario(spec, r, mutate(r).calls));
    const sloppy = multi.map((r) =>
      scoreScenario(spec, r, [
        ...mutate(r).calls.slice(1), // the first call skipped
        { name: spec.tools.find((t) => !r.expected_tools.some((c) => c.name === t.name))!.name, arguments: {} }, // a wrong tool
      ]),
    );
    const exact = (xs: typeof oracle): number => mean(xs.map((s) => s.exactCallMatch));
    const names = (xs: typeof oracle): number => mean(xs.map((s) => s.nameMatch));
    assert.equal(exact(oracle), 1);
    assert.equal(names(changed), 1, 'changing values keeps the name match');
    assert.ok(exact(changed) < 1);
    assert.ok(names(sloppy) < names(changed) && exact(sloppy) <= exact(changed));
    assert.ok(sloppy.every((s) => s.extraCalls.length === 1 && !s.passed));
  });

  it('pass^k from repeated runs', () => {
    assert.equal(passHatK([{ runs: 4, passes: 4 }], 4), 1);
    assert.equal(passHatK([{ runs: 4, passes: 2 }], 1), 0.5);
    assert.equal(passHatK([{ runs: 4, passes: 2 }], 2), 1 / 6);
    assert.equal(
      passHatK(
        [
          { runs: 4, passes: 3 },
          { runs: 4, passes: 0 },
        ],
        2,
      ),
      0.25,
    );
    assert.equal(passHatK([{ runs: 1, passes: 1 }], 2), null);
  });
});
