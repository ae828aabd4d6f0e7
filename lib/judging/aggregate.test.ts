import { describe, expect, it } from "vitest";
import { aggregateAcrossModels, consensusLevel, stdOnSeedScale } from "./aggregate";

describe("two-stage aggregation", () => {
  it("bands consensus at 0.5, 1.0 and 1.5 on the 1–10 scale", () => {
    expect([0, 0.49, 0.5, 0.99, 1.0, 1.49, 1.5, 3].map(consensusLevel)).toEqual([
      "STRONG",
      "STRONG",
      "GOOD",
      "GOOD",
      "PARTIAL",
      "PARTIAL",
      "LOW",
      "LOW",
    ]);
  });

  it("reproduces the worked shape: mean within, mean across, np.std across, flag over 1.5", () => {
    const v = aggregateAcrossModels({
      criterionId: "relevance",
      criterionType: "llm",
      scale: [1, 10],
      threshold: 6,
      samplesByModel: {
        "openai:a": [{ score: 8 }, { score: 7 }, { score: 9 }],
        "google:b": [{ score: 4 }, { score: 5 }, { score: 3 }],
      },
    });
    expect(v.model_results["openai:a"]).toMatchObject({ mean_score: 8, n: 3, samples: [8, 7, 9] });
    expect(v.final_score).toBe(6);
    expect(v.cross_model_std).toBe(2);
    expect(v.consensus_level).toBe("LOW");
    expect(v.flag_for_review).toBe(true);
    expect(v.passed).toBe(true); // 6 >= 6
    expect(v.straddles_threshold).toBe(true);
  });

  it("expresses a std on another scale in 1–10 points before banding", () => {
    expect(stdOnSeedScale(0.5, [0, 1])).toBe(4.5);
    expect(stdOnSeedScale(1, [1, 10])).toBe(1);
  });

  it("skips a model whose samples all failed, keeping its error", () => {
    const v = aggregateAcrossModels({
      criterionId: "c",
      criterionType: "llm",
      scale: [1, 10],
      threshold: 6,
      samplesByModel: {
        ok: [{ score: 7 }, { score: null, error: "timeout" }],
        bad: [{ score: null, error: "HTTP 401" }],
      },
    });
    expect(v.model_results.bad).toMatchObject({ skipped: true, error: expect.stringMatching(/HTTP 401/) });
    expect(v.final_score).toBe(7);
    expect(v.model_results.ok).toMatchObject({ n: 1, errors: 1 });
  });
});
