import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type CaseInput, criterionSchema, type DeterministicContext } from "@/lib/criteria/definition";
import * as avgCredibilityLogic from "./avg_credibility/logic";
import * as containsLogic from "./contains/logic";
import * as jsonValidityLogic from "./json_validity/logic";
import * as lengthBoundsLogic from "./length_bounds/logic";
import { logicModules } from "./logic-registry";

const { computeAvgCredibility } = avgCredibilityLogic;
const { checkContains } = containsLogic;
const { checkJsonValidity } = jsonValidityLogic;
const { checkLengthBounds } = lengthBoundsLogic;

const input: CaseInput = { prompt: "p" };

/** A context as the engine builds it: parsed is the JSON value, or undefined when not JSON. */
function ctx(output: string): DeterministicContext {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    parsed = undefined;
  }
  return { output, parsed, input };
}

/** A deliberately broken context, as if the engine passed garbage. */
const garbage = (value: unknown) => value as DeterministicContext;

describe("checkJsonValidity", () => {
  it("scores 1 for any JSON value", () => {
    expect(checkJsonValidity(ctx('{"a": [1, 2]}'), {})).toEqual({ score: 1, details: "valid JSON (object)" });
    expect(checkJsonValidity(ctx("  [1, 2, 3]\n"), {})).toEqual({
      score: 1,
      details: "valid JSON (array of 3)",
    });
    expect(checkJsonValidity(ctx('"text"'), {}).score).toBe(1);
    expect(checkJsonValidity(ctx("null"), {})).toEqual({ score: 1, details: "valid JSON (null)" });
  });

  it("scores 0 with the parse error for invalid JSON", () => {
    for (const bad of [
      "{a: 1}",
      "{'a': 1}",
      '{"a": 1,}',
      '```json\n{"a": 1}\n```',
      'Here: {"a": 1}',
      "[1, 2",
    ]) {
      const r = checkJsonValidity(ctx(bad), {});
      expect(r.score, bad).toBe(0);
      expect(r.details, bad).toMatch(/^invalid JSON: /);
    }
    expect(checkJsonValidity(ctx("   "), {})).toEqual({ score: 0, details: "output is empty" });
  });

  it("does not throw on a malformed context", () => {
    expect(checkJsonValidity(garbage({ output: 42 }), {})).toEqual({
      score: 0,
      details: "output is not text (got number)",
    });
    expect(checkJsonValidity(garbage(undefined), garbage(undefined)).score).toBe(0);
  });
});

describe("checkContains", () => {
  const answer = "She won the 1903 physics prize and the 1911 Chemistry prize.";

  it("finds plain text, case-insensitively by default", () => {
    expect(checkContains(ctx(answer), { pattern: "chemistry" }).score).toBe(1);
    expect(
      checkContains(ctx(answer), { pattern: "CHEMISTRY", regex: false, case_sensitive: false }).score,
    ).toBe(1);
    expect(checkContains(ctx(answer), { pattern: "medicine" })).toEqual({
      score: 0,
      details: 'text "medicine" not found in output',
    });
  });

  it("respects case_sensitive", () => {
    expect(checkContains(ctx(answer), { pattern: "chemistry", case_sensitive: true }).score).toBe(0);
    expect(checkContains(ctx(answer), { pattern: "Chemistry", case_sensitive: true }).score).toBe(1);
    expect(
      checkContains(ctx(answer), { pattern: "chemistry", regex: true, case_sensitive: true }).score,
    ).toBe(0);
  });

  it("treats the pattern literally unless regex is true", () => {
    expect(checkContains(ctx("costs $5 (approx.)"), { pattern: "$5 (approx.)" }).score).toBe(1);
    expect(checkContains(ctx("a.c"), { pattern: "a.c" }).score).toBe(1);
    expect(checkContains(ctx("abc"), { pattern: "a.c" }).score).toBe(0);
    expect(checkContains(ctx("abc"), { pattern: "a.c", regex: true }).score).toBe(1);
  });

  it("matches regexes and reports where", () => {
    const r = checkContains(ctx(answer), { pattern: "\\b19(0|1)1\\b", regex: true });
    expect(r.score).toBe(1);
    expect(r.details).toContain("at index 39");
    expect(checkContains(ctx(answer), { pattern: "^she won", regex: true }).score).toBe(1);
    expect(checkContains(ctx(answer), { pattern: "\\b2024\\b", regex: true }).score).toBe(0);
  });

  it("scores 0 with a message for bad params instead of throwing", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /params\.pattern must be a non-empty string \(got undefined\)/],
      [{ pattern: "" }, /params\.pattern must be a non-empty string \(got an empty string\)/],
      [{ pattern: 5 }, /got number/],
      [{ pattern: ["a"] }, /got array/],
      [{ pattern: "a", regex: "true" }, /params\.regex must be a boolean \(got string\)/],
      [{ pattern: "a", case_sensitive: 1 }, /params\.case_sensitive must be a boolean \(got number\)/],
      [{ pattern: "(unclosed", regex: true }, /params\.pattern is not a valid regular expression/],
    ];
    for (const [params, message] of cases) {
      const r = checkContains(ctx(answer), params);
      expect(r.score, JSON.stringify(params)).toBe(0);
      expect(r.details).toMatch(message);
    }
    expect(checkContains(ctx(answer), garbage(null)).score).toBe(0);
  });

  it("does not throw on a malformed context", () => {
    expect(checkContains(garbage({ output: null }), { pattern: "a" })).toEqual({
      score: 0,
      details: "output is not text (got null)",
    });
    expect(checkContains(garbage(undefined), { pattern: "a" }).score).toBe(0);
  });
});

describe("checkLengthBounds", () => {
  it("uses defaults 0..2000 and inclusive bounds", () => {
    expect(checkLengthBounds(ctx(""), {})).toEqual({ score: 1, details: "0 chars, within [0, 2000]" });
    expect(checkLengthBounds(ctx("x".repeat(2000)), {}).score).toBe(1);
    expect(checkLengthBounds(ctx("x".repeat(2001)), {})).toEqual({
      score: 0,
      details: "2001 chars, above max_chars=2000",
    });
    expect(checkLengthBounds(ctx("hello"), { min_chars: 5, max_chars: 5 }).score).toBe(1);
    expect(checkLengthBounds(ctx("100 °C."), { min_chars: 20, max_chars: 600 })).toEqual({
      score: 0,
      details: "7 chars, below min_chars=20",
    });
  });

  it("counts code points, not UTF-16 units", () => {
    expect(checkLengthBounds(ctx("🎧🎧🎧"), { max_chars: 3 })).toEqual({
      score: 1,
      details: "3 chars, within [0, 3]",
    });
  });

  it("scores 0 with a message for bad params instead of throwing", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ min_chars: -1 }, /params\.min_chars must be a non-negative integer \(got -1\)/],
      [{ max_chars: "100" }, /params\.max_chars must be a non-negative integer \(got string\)/],
      [{ max_chars: 1.5 }, /got 1\.5/],
      [{ max_chars: null }, /got null/],
      [{ max_chars: Number.NaN }, /got NaN/],
      [{ min_chars: 10, max_chars: 5 }, /params\.min_chars \(10\) is greater than params\.max_chars \(5\)/],
    ];
    for (const [params, message] of cases) {
      const r = checkLengthBounds(ctx("hello"), params);
      expect(r.score, JSON.stringify(params)).toBe(0);
      expect(r.details).toMatch(message);
    }
    expect(checkLengthBounds(ctx("hello"), garbage(undefined)).score).toBe(1);
  });

  it("does not throw on a malformed context", () => {
    expect(checkLengthBounds(garbage({ output: { text: "hi" } }), {})).toEqual({
      score: 0,
      details: "output is not text (got object)",
    });
  });
});

describe("computeAvgCredibility", () => {
  const episode = (id: number, credibility: unknown) => ({
    id: `ep${id}`,
    title: `Episode ${id}`,
    topic: "science",
    scores: { credibility },
  });
  const list = (...creds: unknown[]) => JSON.stringify({ episodes: creds.map((c, i) => episode(i, c)) });
  const defaults = { list_field: "episodes", value_path: "scores.credibility", top_n: 10 };

  it("averages the top N, rounded to 2 decimals", () => {
    expect(computeAvgCredibility(ctx(list(4.5, 3)), defaults)).toEqual({
      score: 3.75,
      details: "avg_credibility=3.75 (n=2)",
    });
    expect(computeAvgCredibility(ctx(list(4, 3, 3)), defaults)).toEqual({
      score: 3.33,
      details: "avg_credibility=3.33 (n=3)",
    });
    expect(computeAvgCredibility(ctx(list(5, 5, 0, 0)), { top_n: 2 })).toEqual({
      score: 5,
      details: "avg_credibility=5.00 (n=2)",
    });
    // defaults apply when params are missing; only the first 10 of 12 count
    expect(computeAvgCredibility(ctx(list(...Array(10).fill(3), 0, 0)), {})).toEqual({
      score: 3,
      details: "avg_credibility=3.00 (n=10)",
    });
  });

  it("reads the list from ctx.output when ctx.parsed is undefined", () => {
    expect(computeAvgCredibility({ output: list(2, 4), parsed: undefined, input }, {}).score).toBe(3);
  });

  it("supports other list fields and value paths, and a root list", () => {
    const output = JSON.stringify({ data: { results: [{ rel: 1 }, { rel: 2 }] } });
    expect(computeAvgCredibility(ctx(output), { list_field: "data.results", value_path: "rel" })).toEqual({
      score: 1.5,
      details: "avg_rel=1.50 (n=2)",
    });
    expect(
      computeAvgCredibility(ctx('[{ "v": 1 }, { "v": 4 }]'), { list_field: "", value_path: "v" }),
    ).toEqual({
      score: 2.5,
      details: "avg_v=2.50 (n=2)",
    });
  });

  it("scores 0 for an empty list", () => {
    expect(computeAvgCredibility(ctx('{"episodes": []}'), defaults)).toEqual({
      score: 0,
      details: "No episodes returned",
    });
  });

  it("scores 0 with a message for malformed output instead of throwing", () => {
    const cases: [DeterministicContext, RegExp][] = [
      [ctx("not json"), /^output is not valid JSON$/],
      [ctx("{}"), /output has no "episodes" field/],
      [ctx("null"), /output has no "episodes" field/],
      [ctx("[1, 2]"), /output has no "episodes" field/],
      [ctx('{"episodes": {"a": 1}}'), /"episodes" is not a list \(got object\)/],
      [ctx('{"episodes": "none"}'), /"episodes" is not a list \(got string\)/],
      [ctx(list(4, "4.5")), /episodes\[1\]\.scores\.credibility is not a finite number \(got string\)/],
      [ctx(list(4, null)), /episodes\[1\]\.scores\.credibility is not a finite number \(got null\)/],
      [ctx('{"episodes": [{"scores": {}}]}'), /episodes\[0\]\.scores\.credibility is missing/],
      [ctx('{"episodes": [{"scores": 5}]}'), /episodes\[0\]\.scores\.credibility is missing/],
      [ctx('{"episodes": [null, 3]}'), /episodes\[0\]\.scores\.credibility is missing/],
      [ctx('{"episodes": [{"scores": {"toString": 1}}]}'), /missing/],
      [garbage({ output: 12, parsed: undefined }), /^output is not valid JSON$/],
      [garbage(undefined), /^output is not valid JSON$/],
    ];
    for (const [context, message] of cases) {
      const r = computeAvgCredibility(context, defaults);
      expect(r.score, JSON.stringify(context)).toBe(0);
      expect(r.details).toMatch(message);
    }
    // prototype properties are not fields
    expect(
      computeAvgCredibility(ctx('{"episodes": [{"scores": {}}]}'), { value_path: "scores.constructor" })
        .score,
    ).toBe(0);
  });

  it("scores 0 with a message for bad params instead of throwing", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ top_n: 0 }, /params\.top_n must be a positive integer \(got 0\)/],
      [{ top_n: "10" }, /params\.top_n must be a positive integer \(got string\)/],
      [{ top_n: 2.5 }, /got 2\.5/],
      [{ list_field: 3 }, /params\.list_field must be a string \(got number\)/],
      [{ value_path: "" }, /params\.value_path must not be empty/],
      [{ value_path: "scores..credibility" }, /params\.value_path has an empty segment/],
    ];
    for (const [params, message] of cases) {
      const r = computeAvgCredibility(ctx(list(4, 4)), params);
      expect(r.score, JSON.stringify(params)).toBe(0);
      expect(r.details).toMatch(message);
    }
    expect(computeAvgCredibility(ctx(list(4, 4)), garbage(null)).score).toBe(4);
  });
});

describe("criteria folders", () => {
  const root = __dirname;
  const folders = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

  it("exist", () => {
    expect(folders.length).toBeGreaterThanOrEqual(12);
  });

  it.each(folders)(
    "%s: definition.json parses with criterionSchema, id = folder, README.md present",
    (folder) => {
      const raw = JSON.parse(fs.readFileSync(path.join(root, folder, "definition.json"), "utf8"));
      const parsed = criterionSchema.safeParse(raw);
      expect(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues)).toBe(true);
      if (!parsed.success) return;
      const def = parsed.data;
      expect(def.id).toBe(folder);
      const readme = fs.readFileSync(path.join(root, folder, "README.md"), "utf8");
      expect(readme.length).toBeGreaterThan(200);

      if (def.type === "deterministic") {
        const mod = logicModules[folder];
        expect(
          mod,
          `run node scripts/gen-criteria-registry.mjs to register criteria/${folder}/logic.ts`,
        ).toBeDefined();
        expect(typeof mod[def.function], `logic.ts must export ${def.function}`).toBe("function");
      } else {
        expect(def.scoring.scale).toEqual([1, 10]);
        expect(def.prompt_template).toContain("on a scale of 1-10");
        expect(def.prompt_template).toMatch(/- 10: .+\n- 7-9: .+\n- 4-6: .+\n- 1-3: .+/);
        expect(
          def.prompt_template.endsWith(
            'Respond with JSON: {"score": <1-10>, "reasoning": "<brief explanation>"}',
          ),
        ).toBe(true);
        expect(def.prompt_template).not.toMatch(/\{\{|\$\{/);
        expect(def.response_schema).toEqual({ score: "number", reasoning: "string" });
        expect(fs.existsSync(path.join(root, folder, "logic.ts"))).toBe(false);
      }
    },
  );

  it("every logic.ts is listed in logicModules", () => {
    const withLogic = folders.filter((f) => fs.existsSync(path.join(root, f, "logic.ts")));
    expect(withLogic).toEqual(Object.keys(logicModules).sort());
  });
});
