import { describe, expect, it } from "vitest";
import { pairedPicks } from "./paired-picks";

const exps = [
  { id: "exp_new", complete: true },
  { id: "exp_running", complete: false },
  { id: "exp_old", complete: true },
];

describe("the paired comparison's A and B", () => {
  it("default to two different configurations: the newest finished as B, the one before it as A", () => {
    expect(pairedPicks(exps, {})).toEqual({ a: "exp_old", b: "exp_new" });
    expect(pairedPicks(exps.slice(0, 2), {})).toEqual({ a: "exp_running", b: "exp_new" });
  });
  it("keep what the address picks; one side picked gets another configuration on the other", () => {
    expect(pairedPicks(exps, { a: "exp_new", b: "exp_old" })).toEqual({ a: "exp_new", b: "exp_old" });
    expect(pairedPicks(exps, { a: "exp_new" })).toEqual({ a: "exp_new", b: "exp_old" });
    expect(pairedPicks(exps, { b: "exp_old" })).toEqual({ a: "exp_new", b: "exp_old" });
    // the same one on both sides only when asked for
    expect(pairedPicks(exps, { a: "exp_old", b: "exp_old" })).toEqual({ a: "exp_old", b: "exp_old" });
    // an unknown id is no pick
    expect(pairedPicks(exps, { a: "exp_gone" })).toEqual({ a: "exp_old", b: "exp_new" });
  });
});
