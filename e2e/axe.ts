import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/** axe's serious and critical violations on the page as it is now, as "rule (impact): target, …". */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .slice(0, 4)
          .map((n) => n.target.join(" "))
          .join(" | ")}${v.nodes.length > 4 ? ` … ${v.nodes.length} in all` : ""}`,
    );
}
