// The engine's parts: every configuration's verdicts equal the run's aggregation called whole
// (failed samples, judges with no answer), the κ of counts, the paired non-inferiority bound, the
// frontier, and the recommendation's refusals when labels are too few.
import { describe, expect, it } from "vitest";
import { pointwiseAgreement } from "../agreement/metrics";
import { aggregateAcrossModels, type SampleScore } from "../judging/aggregate";
import { mulberry32 } from "../stats/bootstrap";
import { cohenKappaFromConfusion } from "../stats/kappa";
import { costPerVerdict } from "./cost";
import { optimizePanel, type PanelInput, type PanelVerdict } from "./engine";
import { binomialDraw, kappa2x2, kappaFigure, nonInferiority } from "./stats";

const judges = ["local:a", "local:b", "local:c"];
function input(verdicts: number, labelled: number, seed = 3): PanelInput {
  const rng = mulberry32(seed);
  const vs: PanelVerdict[] = Array.from({ length: verdicts }, (_, i) => {
    const gold = rng() < 0.5;
    const samples: Record<string, SampleScore[]> = {};
    judges.forEach((j, k) => {
      if (k === 2 && i % 7 === 0) return; // c never answered this case
      samples[j] = Array.from({ length: 4 }, () =>
        rng() < 0.1 ? { score: null, error: "timeout" } : { score: 1 + Math.floor(rng() * 10) },
      );
    });
    return { caseId: `c${i}`, label: i < labelled ? gold : null, stored: null, samples };
  });
  return {
    criterion: { id: "x", type: "llm", scale: [1, 10], threshold: 6, panel: { consensus_threshold: 1 } },
    judges,
    n: 4,
    verdicts: vs,
    costs: costPerVerdict(
      vs.flatMap((v) =>
        Object.entries(v.samples).flatMap(([judge, s]) =>
          s.map((_, k) => ({ caseId: v.caseId, judge, sampleIndex: k, inputTokens: 100, outputTokens: 10 })),
        ),
      ),
      { "local:a": { inputPerMTok: 1, outputPerMTok: 1 }, "local:b": { inputPerMTok: 2, outputPerMTok: 2 } },
      judges,
      4,
      vs.length,
    ),
  };
}

describe("optimizePanel", () => {
  it("every configuration's pass/fail is aggregateAcrossModels' over the first n samples", () => {
    const inp = input(40, 40);
    const r = optimizePanel(inp);
    expect(r.configs).toHaveLength(7 * 4);
    const fullPassed = inp.verdicts.map((v) => {
      const samplesByModel = Object.fromEntries(
        judges.filter((j) => v.samples[j]).map((j) => [j, v.samples[j]]),
      );
      return aggregateAcrossModels({
        criterionId: "x",
        criterionType: "llm",
        scale: [1, 10],
        threshold: 6,
        samplesByModel,
      });
    });
    for (const c of r.configs) {
      let correct = 0;
      let flips = 0;
      inp.verdicts.forEach((v, i) => {
        const samplesByModel = Object.fromEntries(
          c.judges.filter((j) => v.samples[j]).map((j) => [j, v.samples[j].slice(0, c.n)]),
        );
        const verdict = aggregateAcrossModels({
          criterionId: "x",
          criterionType: "llm",
          scale: [1, 10],
          threshold: 6,
          samplesByModel,
        });
        const answered = verdict.final_score !== null;
        if (answered && verdict.passed === v.label) correct++;
        if (
          (answered ? verdict.passed : null) !==
          (fullPassed[i].final_score !== null ? fullPassed[i].passed : null)
        )
          flips++;
      });
      expect(c.correct, c.id).toBe(correct);
      expect(c.flips, c.id).toBe(flips);
    }
  });

  it("a judge without a price: its configurations cost null, named, and the frontier orders by calls", () => {
    const r = optimizePanel(input(30, 30));
    expect(r.unpriced).toEqual(["local:c"]);
    expect(r.costBasis).toBe("calls");
    const withC = r.configs.filter((c) => c.judges.includes("local:c"));
    expect(withC.every((c) => c.costUsd === null && c.unpriced.includes("local:c"))).toBe(true);
    expect(r.configs.find((c) => c.id === "local:a × 2")?.costUsd).toBeCloseTo(2 * 110e-6, 15);
    const calls = r.frontier.map((id) => r.configs.find((c) => c.id === id)?.calls as number);
    expect([...calls].sort((a, b) => a - b)).toEqual(calls);
  });

  it("frontier: cheaper first, each agreeing on more labelled verdicts than every cheaper one", () => {
    const r = optimizePanel(input(60, 60, 9));
    const byId = new Map(r.configs.map((c) => [c.id, c]));
    const f = r.frontier.map((id) => byId.get(id));
    for (let i = 1; i < f.length; i++) expect(f[i]?.correct).toBeGreaterThan(f[i - 1]?.correct as number);
    for (const c of r.configs) {
      if (r.frontier.includes(c.id)) continue;
      // dominated: something on the frontier costs no more and agrees at least as often
      expect(f.some((x) => (x?.calls as number) <= c.calls && (x?.correct as number) >= c.correct)).toBe(
        true,
      );
    }
    // order check on the frontier's n < N configurations
    expect(f.filter((c) => c && c.n < 4).every((c) => c?.orderCheck?.draws === 20)).toBe(true);
  });

  it("too few labels: no recommendation, the number still needed instead", () => {
    const r = optimizePanel(input(30, 6));
    expect(r.recommendation).toMatchObject({ status: "needs_labels", needed: 10, more: 4, candidate: null });
  });
});

describe("the statistics", () => {
  it("κ of a 2×2 table equals cohenKappaFromConfusion, null where undefined", () => {
    for (const t of [
      [5, 2, 1, 7],
      [10, 0, 0, 10],
      [3, 4, 5, 6],
    ])
      expect(kappa2x2(t[0], t[1], t[2], t[3])).toBeCloseTo(
        cohenKappaFromConfusion([
          [t[0], t[1]],
          [t[2], t[3]],
        ]) as number,
        14,
      );
    expect(kappa2x2(4, 0, 0, 0)).toBeNull();
  });

  it("non-inferiority: the Agresti–Min bound by hand, and labels needed when the difference is within the margin", () => {
    // 100 labelled, candidate right where the full panel is wrong 2 times, wrong where it is right 4 times
    const t = nonInferiority(2, 4, 100, 0.05);
    const d = -2 / 102;
    const se = Math.sqrt(2 + 4 + 1 - 4 / 102) / 102;
    expect(t.lower).toBeCloseTo(d - 1.6448536269514722 * se, 14);
    expect(t.nonInferior).toBe(d - 1.6448536269514722 * se > -0.05);
    expect(t.difference).toBe(-0.02);
    // on 20 labels with one discordant verdict each way the test cannot tell: se shrinks as 1/√n,
    // so n + 2 = 22 · (1.645 se / (d + margin))² labels would
    const small = nonInferiority(1, 1, 20, 0.05);
    expect(small.nonInferior).toBe(false);
    const se20 = Math.sqrt(3) / 22;
    expect(small.labelsNeeded).toBe(Math.ceil(22 * ((1.6448536269514722 * se20) / 0.05) ** 2) - 2);
    expect(small.labelsNeeded).toBeGreaterThan(100);
    // clearly worse: no number of labels would make it non-inferior
    expect(nonInferiority(0, 20, 100, 0.05).labelsNeeded).toBeNull();
  });

  it("binomial draws have the binomial's mean and variance; κ's interval matches the per-verdict bootstrap", () => {
    const rng = mulberry32(11);
    const lf = new Float64Array(201);
    for (let k = 2; k <= 200; k++) lf[k] = lf[k - 1] + Math.log(k);
    const xs = Array.from({ length: 20000 }, () => binomialDraw(200, 0.3, rng(), lf));
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length;
    expect(Math.abs(m - 60)).toBeLessThan(0.3); // 4 standard errors of the mean
    expect(Math.abs(v / 42 - 1)).toBeLessThan(0.05);
    expect(binomialDraw(10, 0, 0.5, lf)).toBe(0);
    expect(binomialDraw(10, 1, 0.5, lf)).toBe(10);
    // 300 verdicts: the resampled table and the resampled verdicts give the same interval (Monte Carlo noise apart)
    const counts = { pp: 100, pf: 40, fp: 30, ff: 130 };
    const pairs = [
      ...Array.from({ length: 100 }, (_, i) => ({ itemId: `a${i}`, gold: 1, judge: 1 })),
      ...Array.from({ length: 40 }, (_, i) => ({ itemId: `b${i}`, gold: 1, judge: 0 })),
      ...Array.from({ length: 30 }, (_, i) => ({ itemId: `c${i}`, gold: 0, judge: 1 })),
      ...Array.from({ length: 130 }, (_, i) => ({ itemId: `d${i}`, gold: 0, judge: 0 })),
    ];
    const ref = pointwiseAgreement(pairs, { kind: "pass_fail", bootstrap: { iterations: 4000 } }).kappa;
    const mine = kappaFigure(counts, { iterations: 4000 });
    expect(mine.value).toBeCloseTo(ref.value as number, 12);
    expect(Math.abs((mine.low as number) - (ref.low as number))).toBeLessThan(0.02);
    expect(Math.abs((mine.high as number) - (ref.high as number))).toBeLessThan(0.02);
  });
});
