/**
 * Stage 4's reply shape (`src/core/pipeline/llm/turns.ts`): turns are asked as boundaries (each
 * turn's last call, from an enum), so every reply the schema allows becomes contiguous turns in
 * workflow order. The pipeline tests run it through the real clients; the free-choice adversary
 * on a whole run is in `schemaOnly.test.ts`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTurns } from '../../../../src/core/checks/turns';
import { schemaRuleViolations } from '../../../../src/core/llm/schemaRules';
import { splitAtTurnEnds, turnSplitSchema } from '../../../../src/core/pipeline/llm/turns';
import { LlmTurnEnds } from '../../../../src/core/pipeline/schemas';

const turn = (last_call: number, prompt = `up to ${last_call}`): LlmTurnEnds['turns'][number] => ({ prompt, last_call, followup: 'done' });
const reply = (...ends: number[]): LlmTurnEnds => ({ turns: ends.map((e) => turn(e)) });
const workflow = (n: number): { name: string }[] => Array.from({ length: n }, (_, i) => ({ name: `tool_${i}` }));

/** Every `turns` array the schema for `n` calls allows: 1 to n turns, each ending at any call. */
function* everyReply(n: number): Generator<number[]> {
  const ends = turnSplitSchema(n) as {
    properties: { turns: { minItems: number; maxItems: number; items: { properties: { last_call: { enum: number[] } } } } };
  };
  const { minItems, maxItems, items } = ends.properties.turns;
  const choices = items.properties.last_call.enum;
  for (let k = minItems; k <= maxItems; k++) {
    const idx = new Array<number>(k).fill(0);
    for (;;) {
      yield idx.map((i) => choices[i]!);
      let p = k - 1;
      while (p >= 0 && ++idx[p]! === choices.length) idx[p--] = 0;
      if (p < 0) break;
    }
  }
}

describe('stage 4 asks for turn boundaries', () => {
  it('the reply schema keeps the rules both structured-output modes accept, and names no call lists', () => {
    for (let n = 2; n <= 12; n++) {
      const schema = turnSplitSchema(n);
      assert.deepEqual(schemaRuleViolations(schema), [], `${n} calls`);
      const items = (schema as { properties: { turns: { items: { properties: Record<string, unknown> } } } }).properties.turns.items;
      assert.deepEqual(Object.keys(items.properties).sort(), ['followup', 'last_call', 'prompt']);
    }
  });

  it('an interleaved membership (a later turn holding an earlier call) can no longer be expressed', () => {
    // What the free-choice adversary sent under the old schema, and the old code discarded as `turns:structure`.
    const interleaved = {
      turns: [
        { prompt: 'a', calls: [0, 2], followup: 'x' },
        { prompt: 'b', calls: [1], followup: 'x' },
      ],
    };
    assert.ok(
      checkTurns(interleaved.turns, workflow(3)).problems.some((p) => p.kind === 'order'),
      'it was a structure failure',
    );
    assert.equal(LlmTurnEnds.safeParse(interleaved).success, false, 'the reply format has no call lists');
  });

  it('every reply the schema allows (up to 5 calls, all of them) is contiguous turns that cover each call once in workflow order', () => {
    let replies = 0;
    let repaired = 0;
    let multiTurn = 0;
    for (let n = 2; n <= 5; n++) {
      for (const ends of everyReply(n)) {
        replies++;
        const split = splitAtTurnEnds(reply(...ends), n);
        const problems = checkTurns(split.turns, workflow(n)).problems.filter((p) => p.kind !== 'single-turn');
        assert.deepEqual(problems, [], `${n} calls, ends ${JSON.stringify(ends)}`);
        assert.deepEqual(
          split.turns.flatMap((t) => t.calls),
          workflow(n).map((_, i) => i),
        );
        if (split.fixes.length) repaired++;
        if (split.turns.length > 1) multiTurn++;
      }
    }
    // 6 + 39 + 340 + 3,905 replies. Most need a counted repair (an end not after the one before,
    // or a last turn ending early: a model choosing at random rarely ends on the last call), none
    // is lost, and two thirds still split the workflow.
    assert.equal(replies, 4290);
    assert.ok(multiTurn > replies / 2, `${multiTurn} of ${replies} replies give two or more turns`);
    assert.ok(repaired > 0 && repaired < replies, `${repaired} of ${replies} replies repaired`);
  });

  it('keeps each prompt with the calls up to its turn end', () => {
    const split = splitAtTurnEnds(reply(1, 3, 4), 5);
    assert.deepEqual(
      split.turns.map((t) => [t.prompt, t.calls]),
      [
        ['up to 1', [0, 1]],
        ['up to 3', [2, 3]],
        ['up to 4', [4]],
      ],
    );
    assert.deepEqual(split.fixes, []);
  });

  it('drops a turn that does not end after the one before it, with its prompt', () => {
    const split = splitAtTurnEnds(reply(2, 1, 2, 4), 5);
    assert.deepEqual(
      split.turns.map((t) => [t.prompt, t.calls]),
      [
        ['up to 2', [0, 1, 2]],
        ['up to 4', [3, 4]],
      ],
    );
    assert.deepEqual(split.fixes, ['turn-end-not-after-previous-dropped', 'turn-end-not-after-previous-dropped']);
  });

  it('extends the last turn to the last call', () => {
    const split = splitAtTurnEnds(reply(0, 2), 5);
    assert.deepEqual(
      split.turns.map((t) => t.calls),
      [[0], [1, 2, 3, 4]],
    );
    assert.deepEqual(split.fixes, ['last-turn-extended']);
  });

  it('a first turn ending at the last call is the single-turn outcome (no expansion), not a failure', () => {
    const split = splitAtTurnEnds(reply(4, 1, 3), 5);
    assert.deepEqual(
      split.turns.map((t) => t.calls),
      [[0, 1, 2, 3, 4]],
    );
    assert.equal(split.fixes.length, 2);
  });

  it('drops an end outside the workflow (only a model that ignores the schema sends one); none left is no split', () => {
    assert.deepEqual(splitAtTurnEnds(reply(7, -1, 1.5, 2), 3).fixes, [
      'turn-end-out-of-range-dropped',
      'turn-end-out-of-range-dropped',
      'turn-end-out-of-range-dropped',
    ]);
    assert.deepEqual(splitAtTurnEnds(reply(7), 3).turns, []);
  });
});
