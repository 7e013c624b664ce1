/**
 * Money in the ledger is integer nano-USD (1e-9 USD): token prices per million tokens become whole
 * numbers per token for every price with up to three decimals, each record's cost is rounded once, and
 * every sum after that is exact, so two views of the same records can never disagree by a rounding.
 */

const NANO_PER_USD = 1_000_000_000;

export function usdToNano(usd: number): number {
  return Math.round(usd * NANO_PER_USD);
}

/** An exact decimal string with at least two decimals: 2_500_000_000 → "2.50", 1_000 → "0.000001". */
export function formatNanoUsd(nano: number): string {
  const sign = nano < 0 ? '-' : '';
  const magnitude = Math.abs(nano);
  const whole = Math.floor(magnitude / NANO_PER_USD);
  const fraction = String(magnitude % NANO_PER_USD).padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${whole}.${fraction}`;
}
