/**
 * What a run has cost so far: a mock-only run costs nothing and says so; a run with an unpriced judge
 * is a lower bound ("+ unpriced"), never a plain $0.
 */
export function costSoFar({
  costUsd,
  unpriced,
  free,
}: {
  costUsd: number;
  unpriced: boolean;
  free: boolean;
}): string {
  if (free) return "no cost (mock judges)";
  return `$${costUsd.toFixed(4)}${unpriced ? " + unpriced" : ""} so far`;
}
