import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SCRATCH_DIR } from "./constants";

const root = path.resolve(__dirname, "..");
const fixtures = path.join(root, "examples/agreement/llmbar");

test("published LLMBar judgments, imported: the position-bias audit shows each order's accuracy, positional agreement and first-position wins @pg", async ({
  page,
}) => {
  // imported through the CLI into the dashboard's own database, as a user would
  const out = execFileSync(
    process.execPath,
    [
      path.join(root, "bin/jury.cjs"),
      "agreement",
      "import",
      "llmbar",
      "--dataset",
      path.join(fixtures, "dataset.json"),
      path.join(fixtures, "evaluators/GPT-4/Vanilla/result.json"),
      path.join(fixtures, "evaluators/Biased/FirstAlways/result.json"),
      "--json",
    ],
    { env: { ...process.env, JURY_DB: `${SCRATCH_DIR}/main/jury.db` }, encoding: "utf8" },
  );
  const { set_id: id } = JSON.parse(out) as { set_id: string };

  await page.goto("/agreement");
  await page.getByRole("link", { name: id }).click();
  await expect(page).toHaveURL(new RegExp(`/agreement/${id}$`));

  // the hand-computed figures of examples/agreement/README.md
  const value = (judge: string, figure: string) =>
    page.getByTestId(`audit-row-${judge}`).getByTestId(figure).getAttribute("data-value");
  const close = async (judge: string, figure: string, expected: number) =>
    expect(Number(await value(judge, figure))).toBeCloseTo(expected, 6);
  await close("Biased/FirstAlways", "acc-original", 6 / 12);
  await close("Biased/FirstAlways", "acc-swapped", 6 / 12);
  await close("Biased/FirstAlways", "positional-agreement", 0);
  await close("Biased/FirstAlways", "first-position-wins", 1);
  await close("GPT-4/Vanilla", "acc-original", 8 / 12);
  await close("GPT-4/Vanilla", "acc-swapped", 7 / 12);
  await close("GPT-4/Vanilla", "acc-mean", 15 / 24);
  await close("GPT-4/Vanilla", "positional-agreement", 8 / 12);
  await close("GPT-4/Vanilla", "first-position-wins", 13 / 21);
});
