// Agreement between people: each person's labels read back from a history (undo and a fresh start
// included), κ between two people by hand, and "too few items" under five shared items.
import { describe, expect, it } from "vitest";
import { cohenKappa } from "../stats/kappa";
import { type LabelEvent, MIN_SHARED, peopleAgreement, peopleLabels } from "./people";

const set = (item: string, author: string | null, value: number | null): LabelEvent => ({
  kind: "set",
  item,
  author,
  value,
});
const asObject = (m: Map<string, Map<string, number>>) =>
  Object.fromEntries([...m].map(([p, l]) => [p, Object.fromEntries(l)]));

describe("peopleLabels", () => {
  it("keeps each person's newest label; imports name nobody; a removal takes the label away", () => {
    const got = peopleLabels([
      set("a", null, 1),
      set("a", "ana", 0),
      set("a", "bo", 0),
      set("b", "ana", 1),
      set("b", "ana", 0),
      set("c", "bo", 1),
      set("c", "bo", null),
    ]);
    expect(asObject(got)).toEqual({ ana: { a: 0, b: 0 }, bo: { a: 0 } });
  });

  it("an undo cancels the newest entry still standing, so two undos cancel the two newest", () => {
    const events = [set("a", "ana", 1), set("a", "bo", 0), set("b", "bo", 1), { kind: "undo" as const }];
    expect(asObject(peopleLabels(events))).toEqual({ ana: { a: 1 }, bo: { a: 0 } });
    expect(asObject(peopleLabels([...events, { kind: "undo" }]))).toEqual({ ana: { a: 1 } });
    // an undo after a new entry cancels that one, not the one an earlier undo skipped
    expect(asObject(peopleLabels([...events, set("c", "cy", 1), { kind: "undo" }]))).toEqual({
      ana: { a: 1 },
      bo: { a: 0 },
    });
  });

  it("a fresh start clears everyone's labels of the scope; undoing it brings them back", () => {
    const before = [set("a", "ana", 1), set("b", "bo", 0)];
    expect(asObject(peopleLabels([...before, { kind: "clear" }, set("a", "cy", 0)]))).toEqual({
      cy: { a: 0 },
    });
    expect(asObject(peopleLabels([...before, { kind: "clear" }, { kind: "undo" }]))).toEqual({
      ana: { a: 1 },
      bo: { b: 0 },
    });
  });

  it("adds scope after scope into one map", () => {
    const m = peopleLabels([set("q1 a", "ana", 1)]);
    peopleLabels([set("q2 a", "ana", 0), { kind: "clear" }], m);
    peopleLabels([set("q3 a", "ana", 0)], m);
    expect(asObject(m)).toEqual({ ana: { "q1 a": 1, "q3 a": 0 } });
  });
});

describe("peopleAgreement", () => {
  const labels = (xs: number[]) => new Map(xs.map((v, i) => [`i${i}`, v]));

  it("κ between two people by hand: 8 of 10 agree, each says yes half the time → (0.8 − 0.5) / 0.5 = 0.6", () => {
    const ana = labels([1, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
    const bo = labels([1, 1, 1, 1, 0, 0, 0, 0, 0, 1]);
    const r = peopleAgreement(
      new Map([
        ["bo", bo],
        ["ana", ana],
      ]),
      null,
    );
    expect(r.people).toEqual([
      { name: "ana", labelled: 10 },
      { name: "bo", labelled: 10 },
    ]);
    expect(r.vsJudge).toBeNull();
    expect(r.pairs).toHaveLength(1);
    const p = r.pairs[0];
    expect([p.a, p.b, p.n]).toEqual(["ana", "bo", 10]);
    expect(p.kappa?.value).toBeCloseTo(0.6, 12);
    // the same κ the judge-vs-human figures compute
    expect(p.kappa?.value).toBeCloseTo(cohenKappa([...ana.values()], [...bo.values()], [1, 0]) as number, 12);
    expect(p.kappa?.method).toBe("bootstrap");
    expect(p.kappa?.n).toBe(10);
    expect(p.kappa!.low!).toBeLessThanOrEqual(0.6);
    expect(p.kappa!.high!).toBeGreaterThanOrEqual(0.6);
    expect(p.accuracy).toMatchObject({ value: 0.8, n: 10, method: "wilson" });
  });

  it("only shared items count; under five shared items there is no figure, only n", () => {
    const ana = labels([1, 0, 1, 0, 1, 0]);
    const bo = new Map([
      ["i0", 1],
      ["i1", 0],
      ["i2", 1],
      ["i3", 0],
      ["x", 1],
    ]);
    const judge = new Map([...ana].slice(0, MIN_SHARED));
    const r = peopleAgreement(
      new Map([
        ["ana", ana],
        ["bo", bo],
      ]),
      judge,
    );
    expect(r.pairs).toEqual([{ a: "ana", b: "bo", n: 4, kappa: null, accuracy: null }]);
    expect(r.vsJudge?.map((v) => [v.person, v.n, v.kappa?.value ?? null])).toEqual([
      ["ana", 5, 1],
      ["bo", 4, null],
    ]);
  });

  it("three people give three pairs; someone left with no label is no one", () => {
    const r = peopleAgreement(
      new Map([
        ["cy", labels([1, 1, 0, 0, 1])],
        ["ana", labels([1, 1, 0, 0, 1])],
        ["bo", labels([0, 0, 1, 1, 0])],
        ["dee", new Map()],
      ]),
      null,
    );
    expect(r.pairs.map((p) => [p.a, p.b])).toEqual([
      ["ana", "bo"],
      ["ana", "cy"],
      ["bo", "cy"],
    ]);
    // never the same: pₒ = 0, pₑ = 0.6·0.4 + 0.4·0.6 = 0.48 → κ = −0.48 / 0.52 = −12/13
    expect(r.pairs[0].kappa?.value).toBeCloseTo(-12 / 13, 12);
    expect(r.pairs[1].kappa?.value).toBe(1);
    expect(r.pairs[2].kappa?.value).toBeCloseTo(-12 / 13, 12);
    expect(r.people.map((p) => p.name)).toEqual(["ana", "bo", "cy"]);
  });
});
