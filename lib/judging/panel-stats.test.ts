import { describe, expect, it } from "vitest";
import { panelStats } from "./panel-stats";

const s = (
  caseId: string,
  judge: string,
  sampleIndex: number,
  score: number | null,
  error: string | null = null,
) => ({
  caseId,
  criterionId: "c",
  judge,
  sampleIndex,
  score,
  error,
});

describe("panel stats count failed samples apart", () => {
  it("a judge whose every sample failed: 0 answered, its failures counted, no agreement computed from it", () => {
    const samples = [
      s("x", "a", 0, 7),
      s("x", "a", 1, 8),
      s("y", "a", 0, 3),
      s("y", "a", 1, 4),
      s("x", "b", 0, null, "HTTP 500"),
      s("x", "b", 1, null, "HTTP 500"),
      s("y", "b", 0, null, "HTTP 500"),
      s("y", "b", 1, null, "HTTP 500"),
    ];
    const [c] = panelStats(samples, ["a", "b"]);
    expect(c.alphaAcrossJudges).toBeNull(); // one judge answered: nothing to agree with
    expect(c.judges.map((j) => [j.judge, j.samplesAnswered, j.samplesFailed, j.cases])).toEqual([
      ["a", 4, 0, 2],
      ["b", 0, 4, 0],
    ]);
    expect(c.judges[1].selfConsistency).toBeNull();
    expect(c.judges[0].meanOffset).toBeNull(); // no other judge's mean to differ from
  });
});
