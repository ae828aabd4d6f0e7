/**
 * The dashboard's one palette for judges: Paul Tol's "muted" scheme (nine hues chosen to stay apart
 * for people with any of the common colour-vision deficiencies). Its hues differ pairwise by a
 * CIEDE2000 ΔE of at least 14 in normal vision and at least 11 under simulated protanopia,
 * deuteranopia and tritanopia (colors.test.ts computes both), and each keeps that distance from the
 * panel's near-black. Several of them are light: every mark drawn in them carries a dark outline
 * (MARK_OUTLINE), which gives the mark its 3:1 contrast against white (WCAG's for graphics), and the
 * legend names each judge beside its swatch, so no reading rests on colour alone.
 *
 * The rule that gives a judge its colour: the FNV-1a hash of its id picks a hue, so `local:a` is
 * drawn alike on a run, on the next run and on compare. When two judges of one page
 * hash to the same hue, the later one by id takes the next hue in palette order that no earlier one
 * holds. A page resolves this once over all the judges it shows (the run's panel, both panels on
 * compare) and hands the same map to every chart and legend on it, so one judge is one colour
 * throughout a page, and nine judges or fewer never share one.
 */
export const JUDGE_PALETTE = [
  "#332288", // indigo
  "#88CCEE", // cyan
  "#44AA99", // teal
  "#117733", // green
  "#999933", // olive
  "#DDCC77", // sand
  "#CC6677", // rose
  "#882255", // wine
  "#AA4499", // purple
] as const;

/** The deterministic checks are not judges: grey, and never on a chart beside the judges' hues. */
export const DETERMINISTIC_COLOR = "#52525b"; // zinc-600
/** Threshold lines: red, and dashed, so they read as a line and not as a judge. */
export const THRESHOLD_COLOR = "#dc2626"; // red-600
/** The panel (consensus): near-black, far from every judge hue. */
export const PANEL_COLOR = "#111827"; // gray-900
/** The outline of every coloured mark: the mark's contrast against white, whatever its fill. */
export const MARK_OUTLINE = "#27272a"; // zinc-800

/** FNV-1a: small, stable across runtimes (server and browser give the same colour). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The judge's own hue, whatever else is on the page. */
export function judgeColor(judge: string): string {
  if (judge === "deterministic") return DETERMINISTIC_COLOR;
  return JUDGE_PALETTE[fnv1a(judge) % JUDGE_PALETTE.length];
}

/** Judge id → colour, as a plain object so a server page can hand it to client charts. */
export type JudgeColorMap = Record<string, string>;

/**
 * Colours for the judges of one page: each its own hue, unless two collide; then, in id order, a
 * later judge takes the next hue no earlier judge holds (so the palette's nine judges stay distinct).
 */
export function judgeColors(judges: readonly string[]): JudgeColorMap {
  const out: JudgeColorMap = {};
  const taken = new Set<string>();
  for (const j of [...new Set(judges)].sort()) {
    if (j === "deterministic") {
      out[j] = DETERMINISTIC_COLOR;
      continue;
    }
    let i = fnv1a(j) % JUDGE_PALETTE.length;
    for (let k = 0; k < JUDGE_PALETTE.length && taken.has(JUDGE_PALETTE[i]); k++)
      i = (i + 1) % JUDGE_PALETTE.length;
    out[j] = JUDGE_PALETTE[i];
    taken.add(JUDGE_PALETTE[i]);
  }
  return out;
}

/** The study's configuration kinds (BM25, single judge, dual strict, dual lenient…), one hue each, fixed. */
export function kindColor(kind: string): string {
  const fixed: Record<string, string> = {
    BM25: DETERMINISTIC_COLOR,
    "single judge": JUDGE_PALETTE[0],
    "dual strict": JUDGE_PALETTE[6],
    "dual lenient": JUDGE_PALETTE[2],
  };
  return fixed[kind] ?? JUDGE_PALETTE[fnv1a(kind) % JUDGE_PALETTE.length];
}

/** Legend text in the page's own ink: a series colour (3:1 for a mark) is too light for text (4.5:1). */
export const LEGEND_TEXT = "#27272a"; // zinc-800
