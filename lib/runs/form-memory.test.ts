import { describe, expect, it } from "vitest";
import { rememberedForm } from "./form-memory";

const suites = ["/p/suites/qa", "/p/suites/code"];
const offered = ["openai:gpt-5-mini", "local:a", "local:b"];

describe("rememberedForm", () => {
  it("with no run yet: the first suite and the default judges", () => {
    expect(rememberedForm({ suites, offered, defaults: offered, last: null })).toEqual({
      suiteDir: "/p/suites/qa",
      judges: offered,
      unticked: [],
    });
  });

  it("after a run: its suite and its judges, and a judge that failed every sample is left unticked with why", () => {
    const r = rememberedForm({
      suites,
      offered,
      defaults: offered,
      last: {
        runId: "r1",
        suiteDir: "/p/suites/code",
        judges: ["openai:gpt-5-mini", "local:a"],
        failed: [
          {
            judge: "openai:gpt-5-mini",
            message: "The openai judge needs OPENAI_API_KEY: set it in the environment",
          },
        ],
      },
    });
    expect(r.suiteDir).toBe("/p/suites/code");
    expect(r.judges).toEqual(["local:a"]);
    expect(r.unticked).toEqual([
      { judge: "openai:gpt-5-mini", reason: "every sample failed in the last run (r1): missing key" },
    ]);
  });

  it("a judge no longer offered, or a suite gone, falls back to what is there", () => {
    const r = rememberedForm({
      suites,
      offered: ["local:b"],
      defaults: ["local:b"],
      last: { runId: "r1", suiteDir: "/p/suites/gone", judges: ["local:a"], failed: [] },
    });
    expect(r).toEqual({ suiteDir: "/p/suites/qa", judges: ["local:b"], unticked: [] });
  });

  it("the defaults do not re-tick a judge that failed the last run either", () => {
    const r = rememberedForm({
      suites,
      offered,
      defaults: offered,
      last: {
        runId: "r2",
        suiteDir: "/p/suites/qa",
        judges: ["local:b"],
        failed: [{ judge: "local:b", message: "HTTP 500: down" }],
      },
    });
    // its only judge failed: the defaults, less the failed judge
    expect(r.judges).toEqual(["openai:gpt-5-mini", "local:a"]);
    expect(r.unticked.map((u) => u.judge)).toEqual(["local:b"]);
  });
});
