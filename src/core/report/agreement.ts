/**
 * Agreement of two judges on the same records (the paper's Appendix A.8): record-level paired
 * Pearson r, Spearman ρ, MAE, share within ±0.1, mean signed difference (b − a) with a bootstrap
 * CI, Bland–Altman limits, per-server paired means with CIs under each judge, rank preservation
 * of the server means, and argument sub-dimension failure counts under each judge.
 *
 * Records pair by (server, record id): ids are only unique within a harness, which is why the
 * paper joins on (MCP, conversation_id).
 */
import { finite, labelledCi, type Bootstrap } from './common';
import { rowKey, type JudgedRow } from './judgments';
import { ARGUMENT_SUBDIMENSIONS } from '../vocabulary';
import { mean } from '../util/mean';
import type { JudgePair, PairedAgreement, ServerReport } from './schema';
import { blandAltman, mae, pearson, spearman, withinTolerance } from './stats';

/** One judge's side of a comparison. */
export interface JudgeSide {
  judge: string;
  /** Rows per server, in server order. */
  rows: readonly (readonly JudgedRow[])[];
  /** The judge's pooled report (for the argument failure counts). */
  corpus: ServerReport;
}

type Pick = (r: JudgedRow) => number | null;

function paired(a: JudgeSide, b: JudgeSide, servers: readonly string[], pick: Pick, boot: Bootstrap, label: string): PairedAgreement {
  const xs: number[] = [];
  const ys: number[] = [];
  const perServer: PairedAgreement['servers'] = [];
  servers.forEach((name, si) => {
    const byId = new Map((b.rows[si] ?? []).map((r) => [rowKey(r), r] as const));
    const sx: number[] = [];
    const sy: number[] = [];
    for (const ra of a.rows[si] ?? []) {
      const rb = byId.get(rowKey(ra));
      const x = pick(ra);
      const y = rb ? pick(rb) : null;
      if (x === null || y === null) continue;
      sx.push(x);
      sy.push(y);
    }
    xs.push(...sx);
    ys.push(...sy);
    perServer.push({
      name,
      n: sx.length,
      a: finite(mean(sx)),
      aCi: labelledCi(sx, boot, `${label}|${name}|a`),
      b: finite(mean(sy)),
      bCi: labelledCi(sy, boot, `${label}|${name}|b`),
    });
  });
  const diffs = xs.map((x, i) => (ys[i] as number) - x);
  const ba = blandAltman(xs, ys);
  const withMeans = perServer.filter((s) => s.a !== null && s.b !== null);
  const rank = spearman(
    withMeans.map((s) => s.a as number),
    withMeans.map((s) => s.b as number),
  );
  const pr = pearson(xs, ys);
  const sr = spearman(xs, ys);
  return {
    n: xs.length,
    pearson: { r: finite(pr.r), p: finite(pr.p), n: pr.n },
    spearman: { r: finite(sr.r), p: finite(sr.p), n: sr.n },
    mae: finite(mae(xs, ys)),
    within01: finite(withinTolerance(xs, ys, 0.1)),
    meanDiff: finite(mean(diffs)),
    meanDiffCi: labelledCi(diffs, boot, `${label}|diff`),
    blandAltman: { meanDiff: finite(ba.meanDiff), sdDiff: finite(ba.sdDiff), lower: finite(ba.lower), upper: finite(ba.upper) },
    points: xs.map((x, i) => [x, ys[i] as number]),
    servers: perServer,
    serverRank: { r: finite(rank.r), p: finite(rank.p), n: rank.n },
  };
}

/** Agreement of judge `b` with judge `a` over the servers (differences are b − a). */
export function agreementOf(a: JudgeSide, b: JudgeSide, servers: readonly string[], boot: Bootstrap): JudgePair {
  const label = `agreement|${a.judge}|${b.judge}`;
  return {
    a: a.judge,
    b: b.judge,
    tc: paired(a, b, servers, (r) => r.view?.tc ?? null, boot, `${label}|tc`),
    coh: paired(a, b, servers, (r) => r.view?.coh ?? null, boot, `${label}|coh`),
    argumentFailures: ARGUMENT_SUBDIMENSIONS.map((subdimension) => ({
      subdimension,
      a: a.corpus.argumentFailures.anyBelowOne[subdimension],
      b: b.corpus.argumentFailures.anyBelowOne[subdimension],
    })),
  };
}
