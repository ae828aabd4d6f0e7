import { describe, expect, it } from "vitest";
import {
  DETERMINISTIC_COLOR,
  JUDGE_PALETTE,
  judgeColor,
  judgeColors,
  kindColor,
  MARK_OUTLINE,
  PANEL_COLOR,
} from "./colors";

// ---- colour science, computed here: sRGB → linear → (colour-vision simulation) → CIELAB → CIEDE2000

type Rgb = [number, number, number];
type Lab = [number, number, number];

const toLinear = (c: number) => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};
const hexToLinear = (hex: string): Rgb => {
  const n = Number.parseInt(hex.slice(1), 16);
  return [toLinear((n >> 16) & 255), toLinear((n >> 8) & 255), toLinear(n & 255)];
};

/** Machado, Oliveira & Fernandes (2009), severity 1: dichromacy, applied to linear RGB. */
const SIMULATIONS: Record<string, number[][] | null> = {
  normal: null,
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};
const simulate = (rgb: Rgb, m: number[][] | null): Rgb =>
  m ? (m.map((r) => Math.min(1, Math.max(0, r[0] * rgb[0] + r[1] * rgb[1] + r[2] * rgb[2]))) as Rgb) : rgb;

/** linear sRGB → CIELAB (D65) */
function toLab([r, g, b]: Rgb): Lab {
  const x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const y = 0.2126729 * r + 0.7151522 * g + 0.072175 * b;
  const z = (0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** CIEDE2000 colour difference (Sharma, Wu & Dalal 2005). */
function deltaE2000([l1, a1, b1]: Lab, [l2, a2, b2]: Lab): number {
  const rad = Math.PI / 180;
  const cBar = (Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2;
  const g = 0.5 * (1 - Math.sqrt(cBar ** 7 / (cBar ** 7 + 25 ** 7)));
  const a1p = (1 + g) * a1;
  const a2p = (1 + g) * a2;
  const c1 = Math.hypot(a1p, b1);
  const c2 = Math.hypot(a2p, b2);
  const hue = (x: number, y: number) => {
    if (x === 0 && y === 0) return 0;
    const v = Math.atan2(y, x) / rad;
    return v < 0 ? v + 360 : v;
  };
  const h1 = hue(a1p, b1);
  const h2 = hue(a2p, b2);
  let dh = 0;
  if (c1 * c2 !== 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    else if (dh < -180) dh += 360;
  }
  const dL = l2 - l1;
  const dC = c2 - c1;
  const dH = 2 * Math.sqrt(c1 * c2) * Math.sin((dh * rad) / 2);
  const lBar = (l1 + l2) / 2;
  const cBarP = (c1 + c2) / 2;
  let hBar = h1 + h2;
  if (c1 * c2 !== 0)
    hBar =
      Math.abs(h1 - h2) > 180 ? (h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2) : (h1 + h2) / 2;
  const t =
    1 -
    0.17 * Math.cos((hBar - 30) * rad) +
    0.24 * Math.cos(2 * hBar * rad) +
    0.32 * Math.cos((3 * hBar + 6) * rad) -
    0.2 * Math.cos((4 * hBar - 63) * rad);
  const dTheta = 30 * Math.exp(-(((hBar - 275) / 25) ** 2));
  const rc = 2 * Math.sqrt(cBarP ** 7 / (cBarP ** 7 + 25 ** 7));
  const sl = 1 + (0.015 * (lBar - 50) ** 2) / Math.sqrt(20 + (lBar - 50) ** 2);
  const sc = 1 + 0.045 * cBarP;
  const sh = 1 + 0.015 * cBarP * t;
  const rt = -Math.sin(2 * dTheta * rad) * rc;
  return Math.sqrt((dL / sl) ** 2 + (dC / sc) ** 2 + (dH / sh) ** 2 + rt * (dC / sc) * (dH / sh));
}

const relativeLuminance = (hex: string) => {
  const [r, g, b] = hexToLinear(hex);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrastOnWhite = (hex: string) => 1.05 / (relativeLuminance(hex) + 0.05);

/** The closest pair of colours, as the eye of `vision` sees them. */
function closestPair(colors: readonly string[], vision: keyof typeof SIMULATIONS) {
  const labs = colors.map((c) => toLab(simulate(hexToLinear(c), SIMULATIONS[vision])));
  let min = { de: Number.POSITIVE_INFINITY, pair: ["", ""] };
  for (let i = 0; i < colors.length; i++)
    for (let j = i + 1; j < colors.length; j++) {
      const de = deltaE2000(labs[i], labs[j]);
      if (de < min.de) min = { de, pair: [colors[i], colors[j]] };
    }
  return min;
}

/** The documented minimum distances (colors.ts): ΔE2000 ≥ 14 to normal vision, ≥ 11 to dichromats. */
const MIN_DE = { normal: 14, protanopia: 11, deuteranopia: 11, tritanopia: 11 } as const;

describe("colour science used by the palette test", () => {
  it("CIEDE2000 matches Sharma et al.'s published test pairs", () => {
    expect(deltaE2000([50, 2.6772, -79.7751], [50, 0, -82.7485])).toBeCloseTo(2.0425, 4);
    expect(deltaE2000([50, -1.3802, -84.2814], [50, 0, -82.7485])).toBeCloseTo(1.0, 4);
    expect(deltaE2000([50, 2.5, 0], [73, 25, -18])).toBeCloseTo(27.1492, 4);
    expect(deltaE2000([2.0776, 0.0795, -1.135], [0.9033, -0.0636, -0.5514])).toBeCloseTo(0.9082, 4);
  });

  it("the distance catches the reported pair: the old amber and orange were too close for a deuteranope", () => {
    // two judges drawn rgb(180,83,9) and rgb(234,88,12): near-identical oranges
    expect(closestPair(["#b45309", "#ea580c"], "normal").de).toBeLessThan(MIN_DE.normal);
    expect(closestPair(["#b45309", "#4d7c0f"], "deuteranopia").de).toBeLessThan(MIN_DE.deuteranopia);
  });
});

describe("the judge palette", () => {
  it("holds at least 8 hues, each pair at least the documented ΔE2000 apart, in normal and simulated colour-blind vision", () => {
    expect(JUDGE_PALETTE.length).toBeGreaterThanOrEqual(8);
    const found = Object.fromEntries(
      (Object.keys(MIN_DE) as (keyof typeof MIN_DE)[]).map((v) => [v, closestPair(JUDGE_PALETTE, v)]),
    );
    for (const v of Object.keys(MIN_DE) as (keyof typeof MIN_DE)[])
      expect(found[v].de, `${v}: ${found[v].pair.join(" vs ")}`).toBeGreaterThanOrEqual(MIN_DE[v]);
  });

  it("the panel's colour keeps the same distance from every judge hue", () => {
    for (const v of Object.keys(MIN_DE) as (keyof typeof MIN_DE)[]) {
      const labs = JUDGE_PALETTE.map((c) => toLab(simulate(hexToLinear(c), SIMULATIONS[v])));
      const panel = toLab(simulate(hexToLinear(PANEL_COLOR), SIMULATIONS[v]));
      for (const [i, lab] of labs.entries())
        expect(deltaE2000(lab, panel), `${v}: ${JUDGE_PALETTE[i]} vs panel`).toBeGreaterThanOrEqual(
          MIN_DE[v],
        );
    }
  });

  it("marks are outlined in an ink with 3:1 contrast against white, since some hues are lighter", () => {
    expect(contrastOnWhite(MARK_OUTLINE)).toBeGreaterThanOrEqual(3);
    expect(contrastOnWhite(PANEL_COLOR)).toBeGreaterThanOrEqual(3);
    expect(JUDGE_PALETTE.some((c) => contrastOnWhite(c) < 3)).toBe(true); // why the outline is needed
  });
});

describe("judge colours", () => {
  it("a judge's colour depends on its id only: the same on every chart and page", () => {
    expect(judgeColor("local:a")).toBe(judgeColor("local:a"));
    expect(judgeColors(["local:a", "openai:gpt-5-mini"])["local:a"]).toBe(judgeColor("local:a"));
    expect(judgeColors(["local:zzz", "local:a"])["local:a"]).toBe(judgeColor("local:a"));
    expect(judgeColor("deterministic")).toBe(DETERMINISTIC_COLOR);
  });

  it("the judges of one page never share a colour, up to the palette's size, and any 8 are the documented distance apart", () => {
    for (const k of [2, 3, 5, 8, JUDGE_PALETTE.length]) {
      const judges = Array.from({ length: k }, (_, i) => `local:judge-${i}`);
      const colors = Object.values(judgeColors(judges));
      expect(new Set(colors).size).toBe(k);
      expect(closestPair(colors, "deuteranopia").de).toBeGreaterThanOrEqual(MIN_DE.deuteranopia);
    }
    // two ids that hash to the same hue: the later one by id moves, the earlier keeps its own
    const base = judgeColor("local:a");
    const twin = Array.from({ length: 500 }, (_, i) => `local:x${i}`).find((j) => judgeColor(j) === base);
    expect(twin).toBeDefined();
    const pair = judgeColors([twin as string, "local:a"]);
    expect(pair["local:a"]).toBe(base);
    expect(pair[twin as string]).not.toBe(base);
    // the map is the same whatever order the page lists its judges in
    expect(judgeColors([twin as string, "local:a"])).toEqual(judgeColors(["local:a", twin as string]));
  });

  it("study configuration kinds have fixed hues from the palette (BM25 in the checks' grey)", () => {
    const kinds = ["BM25", "single judge", "dual strict", "dual lenient"].map(kindColor);
    expect(new Set(kinds).size).toBe(4);
    expect(kinds[0]).toBe(DETERMINISTIC_COLOR);
    for (const k of kinds.slice(1)) expect(JUDGE_PALETTE as readonly string[]).toContain(k);
  });
});
