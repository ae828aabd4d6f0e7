// The agreement tables rendered to HTML from real reports (the fixtures): every figure with its n
// and interval, the pressed state of the label buttons, and the disagreements linking to samples.
import path from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { setVerdictLabel } from "@/db/queries/labels";
import { importLlmbar, importTrec, showRunAgreement } from "@/lib/agreement/service";
import { seedRun } from "@/lib/testing/agreement-run";
import { tempDb } from "@/lib/testing/fixtures";

vi.mock("@/app/actions/labels", () => ({ setLabel: vi.fn(), undoLabel: vi.fn() }));
vi.mock("next/navigation", () => ({ useRouter: () => ({ refresh: () => {}, push: () => {} }) }));

const ex = (...p: string[]) => path.resolve(__dirname, "../../examples/agreement", ...p);

describe("agreement views", () => {
  it("the position-bias audit shows each figure with its interval and n", async () => {
    const { SetReportView } = await import("@/components/agreement/set-report");
    const { db } = tempDb();
    const { report } = await importLlmbar(db, ex("llmbar/dataset.json"), [
      ex("llmbar/evaluators/Biased/FirstAlways/result.json"),
    ]);
    const html = renderToStaticMarkup(createElement(SetReportView, { r: report }));
    expect(html).toContain('data-testid="positional-agreement" data-value="0"');
    expect(html).toMatch(
      /data-testid="first-position-wins" data-value="1"[^>]*><span class="font-medium">100\.0%<\/span><span[^>]*> \[\d+\.\d%–100\.0%\] n=24/,
    );
    expect(html).toContain("equal 0/12");
  });

  it("the agreement table and the confusion matrix of a TREC import", async () => {
    const { SetReportView } = await import("@/components/agreement/set-report");
    const { db } = tempDb();
    const { report } = await importTrec(db, ex("trec/gold.qrels"), [ex("trec/judge-b.qrels")]);
    const html = renderToStaticMarkup(createElement(SetReportView, { r: report }));
    expect(html).toContain(`data-testid="weighted-kappa" data-value="${118 / 133}"`);
    expect(html).toContain("q2 d4, q3 d1");
    expect(html).toContain('data-testid="confusion-judge-b"');
  });

  it("a run's agreement links each disagreement to its samples", async () => {
    const { RunAgreementView } = await import("@/components/agreement/run-agreement-view");
    const { db } = tempDb();
    const runId = await seedRun(db);
    await setVerdictLabel(db, { runId, caseId: "c2", criterionId: "helpful" }, { passed: true, score: 7 });
    const html = renderToStaticMarkup(
      createElement(RunAgreementView, { r: (await showRunAgreement(db, runId))! }),
    );
    expect(html).toContain(`href="/runs/${runId}?case=c2&amp;criterion=helpful"`);
    expect(html).toContain("1 of 8 cells labelled");
    // the κ/α reading guide sits beside a run's figures as beside an import's
    expect(html).toContain('data-testid="reading-guide"');
    expect(html).toContain("conventions, not tests");
  });

  it("label buttons say which label is set (aria-pressed) and their keys", async () => {
    const { LabelButtons } = await import("@/components/agreement/label-buttons");
    const html = renderToStaticMarkup(
      createElement(LabelButtons, {
        runId: "run_20260101_0000abcd",
        caseId: "c1",
        criterionId: "helpful",
        scale: [1, 10],
        initial: { passed: false, score: 3 },
      }),
    );
    expect(html).toMatch(/aria-pressed="false"[^>]*data-testid="label-pass"/);
    expect(html).toMatch(/aria-pressed="true"[^>]*data-testid="label-fail"/);
    expect(html).toContain('aria-keyshortcuts="y"');
    expect(html).toContain('value="3"');
  });
});
