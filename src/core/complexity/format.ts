/**
 * Number formatting for complexity tables. The fixture README (and the paper's tables) were
 * produced with Python, which rounds an exact binary tie to even (0.625 → "0.62"); JavaScript's
 * `toFixed` rounds it up ("0.63"). Reports use this so their numbers match those tables.
 */

/**
 * Formats `value` with `digits` decimals, rounding half to even on the exact binary value,
 * as Python's `format(value, '.2f')` does.
 */
export function formatFixed(value: number, digits = 2): string {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return String(value);
  const rounded = value.toFixed(digits);
  // toFixed(100) spells out the exact binary value for every magnitude that can produce a tie.
  const exact = Math.abs(value).toFixed(100);
  const point = exact.indexOf('.');
  const tail = exact.slice(point + 1 + digits);
  if (!/^50*$/.test(tail)) return rounded;
  const kept = exact.slice(0, point + 1 + digits).replace(/\.$/, '');
  const lastDigit = Number(kept[kept.length - 1]);
  if (lastDigit % 2 === 1) return rounded; // toFixed already rounded this tie away from zero, to even
  return `${value < 0 ? '-' : ''}${kept}`;
}
