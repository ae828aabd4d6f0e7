import { describe, expect, it } from "vitest";
import { mulberry32 } from "../stats/bootstrap";
import { deepMerge, judgeOffBlock, MEMORY_JUDGE_DEFAULTS } from "./memory-judge-defaults";
import { defaultSettings, memoryJudgeSchema } from "./schema";

/** What readSettings would make of a stored memory-judge block (merged over the defaults, then zod). */
const viaZod = (block: unknown) => memoryJudgeSchema.safeParse(deepMerge(defaultSettings.memoryJudge, block));

describe("the hook's quick read of the memory-judge block", () => {
  it("has the zod schema's defaults", () => {
    expect(memoryJudgeSchema.parse({})).toEqual(MEMORY_JUDGE_DEFAULTS);
    expect(judgeOffBlock(undefined)).toEqual(memoryJudgeSchema.parse({}));
    expect(judgeOffBlock({})).toEqual(memoryJudgeSchema.parse({}));
  });

  it("declines when the judge is on, so the hook takes the full path", () => {
    expect(judgeOffBlock({ memoryJudge: { enabled: true } })).toBeNull();
    expect(judgeOffBlock({ memoryJudge: { enabled: "false" } })).toBeNull();
  });

  it("reads a valid block as zod does: trimmed model, deep-merged modes, a mode's own pool, unknown keys dropped", () => {
    const block = {
      enabled: false,
      model: "  local:qwen  ",
      candidate_pool_size: 40,
      modes: { auto: { max_output: 5, candidate_pool_size: 8 } },
      surplus: 1,
    };
    const quick = judgeOffBlock({ memoryJudge: block });
    const zod = viaZod(block);
    expect(zod.success).toBe(true);
    expect(quick).toEqual(zod.data);
    expect(quick?.model).toBe("local:qwen");
    expect(quick?.modes.auto).toEqual({ verification: "strict", max_output: 5, candidate_pool_size: 8 });
    expect(quick?.modes.search).toEqual({ verification: "lenient", max_output: 10 });
  });

  it("never accepts a block zod rejects, and agrees with zod on every block it accepts (6,000 random blocks)", () => {
    const rand = mulberry32(7);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
    const numbers = [-1, 0, 0.5, 1, 2, 3, 15, 20, 21, 50, 51, 60, 61, 100, 101, Number.NaN, "3", null];
    const field = () => (rand() < 0.5 ? undefined : pick(numbers));
    const mode = () =>
      rand() < 0.2
        ? pick([undefined, null, "x", []])
        : {
            verification: pick([undefined, "strict", "lenient", "loose", 1]),
            max_output: field(),
            candidate_pool_size: field(),
          };
    let accepted = 0;
    let agreedRejections = 0;
    for (let i = 0; i < 6000; i++) {
      const block: Record<string, unknown> = {
        enabled: pick([false, false, false, true, undefined, "no"]),
        model: pick([undefined, "mock:judge", " ", "", 3, "x".repeat(201)]),
        timeout_per_call: field(),
        fallback_top_k: field(),
        candidate_pool_size: field(),
        dual_verification: pick([undefined, true, false, "yes"]),
        include_conversation_context: pick([undefined, true, false, 0]),
        context_turns: field(),
        // mostly valid, so the generator still reaches accepted blocks
        include_body: rand() < 0.8 ? pick([undefined, true, false]) : "true",
        shuffle: rand() < 0.8 ? pick([undefined, true, false]) : 1,
        samples: rand() < 0.8 ? pick([undefined, 1, 3, 10]) : pick([0, 11, 2.5, "3"]),
        collection:
          rand() < 0.8
            ? pick([undefined, "shop-api", " shop-api ", "", "  "])
            : pick(["a b", 3, "x".repeat(65), "-lead"]),
        modes: rand() < 0.3 ? undefined : { auto: mode(), search: mode() },
      };
      for (const k of Object.keys(block)) if (block[k] === undefined) delete block[k];
      const quick = judgeOffBlock({ memoryJudge: block });
      const zod = viaZod(block);
      if (quick) {
        accepted++;
        expect(zod.success, JSON.stringify(block)).toBe(true);
        expect(quick, JSON.stringify(block)).toEqual(zod.data);
      } else if (!zod.success) agreedRejections++;
      else expect(zod.data?.enabled, `declined a valid judge-off block: ${JSON.stringify(block)}`).toBe(true);
    }
    // the generator reaches both sides
    expect(accepted).toBeGreaterThan(20);
    expect(agreedRejections).toBeGreaterThan(200);
  });

  it("declines what is not an object", () => {
    for (const stored of [null, 3, "x", [], { memoryJudge: [] }, { memoryJudge: "off" }])
      expect(judgeOffBlock(stored)).toBeNull();
  });
});
