import { describe, expect, it } from "vitest";
import { krippendorffAlphaInterval } from "../stats/krippendorff";
import { krippendorffAlphaIntervalFromMoments } from "../stats/krippendorff-moments";
import { pageOf, parsePage } from "./paging";

describe("paging the case table", () => {
  const rows = Array.from({ length: 120 }, (_, i) => i + 1);
  it("gives each page its rows and where they sit; a page past the end is the last", () => {
    expect(pageOf(rows, 2)).toMatchObject({ page: 2, pages: 3, first: 51, last: 100, total: 120 });
    expect(pageOf(rows, 2).rows).toEqual(rows.slice(50, 100));
    expect(pageOf(rows, 3)).toMatchObject({ first: 101, last: 120 });
    expect(pageOf(rows, 7).page).toBe(3);
    expect(pageOf([], 4)).toMatchObject({ page: 1, pages: 1, first: 0, last: 0, total: 0, rows: [] });
  });
  it("reads ?page= as a whole number ≥ 1, anything else as 1", () => {
    expect(parsePage("3")).toBe(3);
    expect(parsePage(["2", "5"])).toBe(2);
    for (const bad of [undefined, "", "0", "-1", "1.5", "x", "1e3", "9999999999"])
      expect(parsePage(bad)).toBe(1);
  });
});

describe("Krippendorff's interval alpha from moments", () => {
  const moments = (units: number[][]) =>
    units
      .filter((u) => u.length > 0)
      .map((u) => ({
        m: u.length,
        sum: u.reduce((a, b) => a + b, 0),
        sumSq: u.reduce((a, b) => a + b * b, 0),
        min: Math.min(...u),
        max: Math.max(...u),
      }));
  it("equals the value-based alpha, and is null where it is (identical values, too few)", () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (let t = 0; t < 20; t++) {
      const units = Array.from({ length: 30 }, () =>
        Array.from({ length: Math.floor(rnd() * 5) }, () => Math.round(rnd() * 18) / 2 + 1),
      );
      const want = krippendorffAlphaInterval(units);
      const got = krippendorffAlphaIntervalFromMoments(moments(units));
      expect(got.pairable).toBe(want.pairable);
      if (want.alpha === null) expect(got.alpha).toBeNull();
      else expect(got.alpha).toBeCloseTo(want.alpha, 12);
    }
    expect(
      krippendorffAlphaIntervalFromMoments(
        moments([
          [0.1, 0.1, 0.1],
          [0.1, 0.1],
        ]),
      ).alpha,
    ).toBeNull();
    expect(krippendorffAlphaIntervalFromMoments(moments([[3], [4]])).alpha).toBeNull();
  });
});
