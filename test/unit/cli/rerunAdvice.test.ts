/** The advice after a run says what re-running does (issue 21): retry failed items, name --retry-discarded for discarded ones, nothing when nothing is left. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rerunAdvice } from '../../../src/cli/generateSummary';

describe('rerunAdvice', () => {
  it('failed items: a re-run retries them; discarded ones beside them need --retry-discarded', () => {
    assert.equal(rerunAdvice({ failed: 2, discarded: 0 }), 'Re-run the same command to retry the 2 items that failed (finished replies are cached).');
    assert.match(
      rerunAdvice({ failed: 1, discarded: 3 }) ?? '',
      /retry the 1 item that failed .*; the 3 items discarded stay discarded: --retry-discarded asks for them again/,
    );
  });

  it('only discarded items: a re-run makes no call, --retry-discarded is named', () => {
    assert.equal(
      rerunAdvice({ failed: 0, discarded: 1 }),
      'Re-running the same command makes no call: the 1 item discarded is cached as discarded. --retry-discarded asks for it again as a new sample.',
    );
  });

  it('nothing left: no advice', () => {
    assert.equal(rerunAdvice({ failed: 0, discarded: 0 }), undefined);
  });
});
