import path from "node:path";
import { beforeAll, expect, it } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";

// The criteria playground's server action is a public POST endpoint that can spend money: it checks
// every field, and refuses judges Settings does not enable, before any call.
beforeAll(() => {
  process.env.JURY_DB = path.join(tempDir(), "criteria-action.db");
});

const form = (entries: [string, string][]) => {
  const f = new FormData();
  for (const [k, v] of entries) f.append(k, v);
  return f;
};
const base: [string, string][] = [
  ["criterionId", "correctness"],
  ["n", "2"],
  ["prompt", "q"],
  ["context", ""],
  ["reference", ""],
  ["output", "an answer"],
  ["params", ""],
];
const without = (name: string) => base.filter(([k]) => k !== name);

it("the criteria playground refuses bad input field by field, and judges not enabled, before any call", async () => {
  const { tryCriterionAction } = await import("@/app/actions/criteria");
  expect(await tryCriterionAction(null, "x" as unknown as FormData)).toMatchObject({
    ok: false,
    error: "Bad request: expected form data, got a string.",
  });
  expect(
    await tryCriterionAction(null, form([...without("n"), ["n", "11"], ["judges", "mock:judge"]])),
  ).toMatchObject({
    ok: false,
    fieldErrors: { n: "N must be at most 10" },
  });
  expect(
    await tryCriterionAction(null, form([...without("output"), ["output", "   "], ["judges", "mock:judge"]])),
  ).toMatchObject({ ok: false, fieldErrors: { output: "Type the output to judge" } });
  expect(await tryCriterionAction(null, form(base))).toMatchObject({
    ok: false,
    fieldErrors: { judges: "Pick at least one judge" },
  });
  expect(await tryCriterionAction(null, form([...base, ["judges", "evil:model"]]))).toMatchObject({
    ok: false,
    fieldErrors: { judges: "Not enabled in Settings: evil:model" },
  });
  expect(
    await tryCriterionAction(
      null,
      form([...without("criterionId"), ["criterionId", "../etc"], ["judges", "x:y"]]),
    ),
  ).toMatchObject({ ok: false, fieldErrors: { criterionId: "Not a criterion id" } });
  expect(
    await tryCriterionAction(
      null,
      form([...without("criterionId"), ["criterionId", "nope"], ["judges", "x:y"]]),
    ),
  ).toMatchObject({ ok: false, error: 'No criterion "nope".' });
  expect(
    await tryCriterionAction(
      null,
      form([
        ...without("criterionId").filter(([k]) => k !== "params"),
        ["criterionId", "contains"],
        ["params", "[1]"],
      ]),
    ),
  ).toMatchObject({
    ok: false,
    fieldErrors: { params: 'Parameters must be a JSON object, like {"pattern": "4"}' },
  });
});
