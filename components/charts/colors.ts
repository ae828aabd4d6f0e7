/**
 * One colour per judge, the same on every page: a judge's colour comes from a hash of its name, so
 * `local:a` is drawn alike on a run, on the next run and on a review. Ten hues far apart, each at
 * least 3:1 against white (WCAG's contrast for graphics); red is left to the threshold line, grey to
 * the deterministic checks. When two judges of one chart hash to the same hue, the one later by name
 * takes the next free hue, so a chart never draws two judges alike.
 */
export const JUDGE_PALETTE = [
  "#2563eb", // blue-600
  "#ea580c", // orange-600
  "#059669", // emerald-600
  "#c026d3", // fuchsia-600
  "#0e7490", // cyan-700
  "#b45309", // amber-700
  "#6d28d9", // violet-700
  "#4d7c0f", // lime-700
  "#be185d", // pink-700
  "#1e3a8a", // blue-900
] as const;

export const DETERMINISTIC_COLOR = "#52525b"; // zinc-600
export const THRESHOLD_COLOR = "#dc2626"; // red-600
export const PANEL_COLOR = "#111827"; // gray-900

/** FNV-1a: small, stable across runtimes (server and browser give the same colour). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The judge's own hue, whatever else is on the chart. */
export function judgeColor(judge: string): string {
  if (judge === "deterministic") return DETERMINISTIC_COLOR;
  return JUDGE_PALETTE[fnv1a(judge) % JUDGE_PALETTE.length];
}

/**
 * Colours for the judges of one chart: each its own hue, unless two collide; then, in name order, a
 * later judge takes the next hue no earlier judge holds (so the palette's ten judges stay distinct).
 */
export function judgeColors(judges: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const j of [...new Set(judges)].sort()) {
    if (j === "deterministic") {
      out.set(j, DETERMINISTIC_COLOR);
      continue;
    }
    let i = fnv1a(j) % JUDGE_PALETTE.length;
    for (let k = 0; k < JUDGE_PALETTE.length && taken.has(JUDGE_PALETTE[i]); k++)
      i = (i + 1) % JUDGE_PALETTE.length;
    out.set(j, JUDGE_PALETTE[i]);
    taken.add(JUDGE_PALETTE[i]);
  }
  return out;
}

/** The study's configuration kinds (BM25, single judge, dual strict, dual lenient…), one hue each, fixed. */
export function kindColor(kind: string): string {
  const fixed: Record<string, string> = {
    BM25: "#52525b",
    "single judge": "#2563eb",
    "dual strict": "#ea580c",
    "dual lenient": "#059669",
  };
  return fixed[kind] ?? JUDGE_PALETTE[fnv1a(kind) % JUDGE_PALETTE.length];
}

/** Legend text in the page's own ink: a series colour (3:1 for a mark) is too light for text (4.5:1). */
export const LEGEND_TEXT = "#27272a"; // zinc-800
