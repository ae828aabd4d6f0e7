// What a reader needs beside the figures: a guide to κ and α with its sources (said to be conventions),
// the unusable answers labelled by order, and judge names kept visible in tables that scroll.
import path from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { importLlmbar, importTrec } from "@/lib/agreement/service";
import { tempDb } from "@/lib/testing/fixtures";

vi.mock("next/navigation", () => ({ useRouter: () => ({ refresh: () => {}, push: () => {} }) }));

const ex = (...p: string[]) => path.resolve(__dirname, "../../examples/agreement", ...p);

describe("reading the agreement figures", () => {
  it("a TREC report carries the κ/α reading guide with its sources, saying the bands are conventions", async () => {
    const { SetReportView } = await import("@/components/agreement/set-report");
    const { db } = tempDb();
    const { report } = await importTrec(db, ex("trec/gold.qrels"), [ex("trec/judge-a.qrels")]);
    const html = renderToStaticMarkup(createElement(SetReportView, { r: report }));
    expect(html).toContain('data-testid="reading-guide"');
    expect(html).toContain("0–0.20 slight");
    expect(html).toContain("0.61–0.80 substantial");
    expect(html).toContain("conventions, not tests");
    expect(html).toContain("Landis, J. R. &amp; Koch, G. G. (1977)");
    expect(html).toContain("Krippendorff, K. (2004)");
    // the judge's name stays in view while the table scrolls in its own box
    expect(html).toMatch(/<td class="sticky left-0[^"]*">judge-a<\/td>/);
    expect(html).toMatch(
      /<section aria-label="Agreement with the gold labels, per judge" tabindex="0"[^>]*overflow-x-auto[^>]*><table class="w-full min-w-\[40rem\]/,
    );
  });

  it("the position audit says which unusable count is the own order and which swapped", async () => {
    const { SetReportView } = await import("@/components/agreement/set-report");
    const { db } = tempDb();
    const { report } = await importLlmbar(db, ex("llmbar/dataset.json"), [
      ex("llmbar/evaluators/Biased/FirstAlways/result.json"),
    ]);
    const html = renderToStaticMarkup(createElement(SetReportView, { r: report }));
    expect(html).toContain("Unusable (own order / swapped)");
    const a = report.judges[0].pairwise!;
    expect(html).toContain(
      `data-testid="unusable">${a.unusable.original} own order / ${a.unusable.swapped} swapped</td>`,
    );
  });
});
