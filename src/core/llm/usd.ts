/**
 * The one way amounts of money are written. Import-free: the report page bundle uses it
 * (through `report/tables.ts`); everything else imports it from `pricing.ts`.
 */

/** `$0.0123` under ten cents, `$0.47`, `$1.20`, `$1,234.50`; `unknown price` for null. */
export function formatUsd(usd: number | null): string {
  if (usd === null) return 'unknown price';
  if (usd > 0 && usd < 0.1) return `$${usd.toFixed(4)}`;
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** `≈$1.20 (batch ≈$0.60)`; `unknown price` when the model has none. */
export function formatEstimateUsd(sync: number | null, batch: number | null): string {
  if (sync === null) return 'unknown price';
  return `≈${formatUsd(sync)}${batch === null ? '' : ` (batch ≈${formatUsd(batch)})`}`;
}
