const MS_PER_UNIT = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof MS_PER_UNIT;

const DURATION = /^(\d+(\.\d+)?(ms|s|m|h|d))+$/;
const SEGMENT = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Parses a duration such as `"90s"`, `"1.5h"` or `"1h30m"` into milliseconds. */
export function parseDuration(input: string): number {
  const text = input.trim();
  if (!DURATION.test(text)) {
    throw new Error(`Invalid duration: "${input}"`);
  }
  let total = 0;
  for (const match of text.matchAll(SEGMENT)) {
    total += Number(match[1]) * MS_PER_UNIT[match[2] as Unit];
  }
  return total;
}
