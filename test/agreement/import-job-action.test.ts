// Large uploads from the Agreement page go to a job in its own process (the request only saves the
// files): the job row shows the outcome and the report is stored. Over the upload limit, the form's
// answer says the limit and the CLI command, instead of a bare failure.
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";

vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

beforeAll(() => {
  process.env.JURY_DB = path.join(tempDir(), "import-job.db");
});

function qrels(n: number, shift: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`q${i % 97} 0 d${i} ${(i * 7 + shift * (i % 3)) % 4}`);
  return `${out.join("\n")}\n`;
}

function form(files: Record<string, File[]>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries({ format: "trec", names: "", cut: "", scale: "" })) fd.set(k, v);
  for (const [k, list] of Object.entries(files)) for (const f of list) fd.append(k, f);
  return fd;
}

describe("importAgreement of a large upload", () => {
  it("starts a job that imports in its own process; the set and its report are stored when it is done", async () => {
    const { importAgreement } = await import("@/app/actions/agreement");
    const { getDb } = await import("@/db/client");
    const { getJob } = await import("@/db/queries/jobs");
    const { storedReport } = await import("@/lib/agreement/jobs");
    const gold = new File([qrels(20_000, 0)], "gold.qrels");
    const judge = new File([qrels(20_000, 1)], "judge.qrels");
    expect(gold.size + judge.size).toBeGreaterThan(256 * 1024);
    const r = await importAgreement(null, form({ gold: [gold], judges: [judge] }));
    if (!r?.ok) throw new Error(JSON.stringify(r));
    expect(r.data.jobId).toBe(`import-${r.data.setId}`);
    const db = getDb();
    let status = (await getJob(db, { id: r.data.jobId as string }))?.status;
    for (let i = 0; i < 600 && (status === "queued" || status === "running"); i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      status = (await getJob(db, { id: r.data.jobId as string }))?.status;
    }
    expect(await getJob(db, { id: r.data.jobId as string })).toMatchObject({ status: "done", error: null });
    const shown = await storedReport(db, r.data.setId);
    expect(shown?.kind).toBe("set");
    if (shown?.kind !== "set") return;
    expect(shown.report.judges.map((j) => [j.judge, j.n])).toEqual([["judge", 20_000]]);
  }, 90_000);

  it("over the upload limit: the answer names the limit, its setting and the CLI command", async () => {
    const { importAgreement } = await import("@/app/actions/agreement");
    process.env.JURY_UPLOAD_MAX_BYTES = "2048";
    try {
      const r = await importAgreement(
        null,
        form({
          gold: [new File([qrels(200, 0)], "g.qrels")],
          judges: [new File([qrels(200, 1)], "j.qrels")],
        }),
      );
      expect(r).toMatchObject({ ok: false });
      if (r?.ok !== false) return;
      expect(r.error).toContain("over the dashboard's upload limit of 2 KiB (JURY_UPLOAD_MAX_BYTES");
      expect(r.error).toContain("jury agreement import trec <gold.qrels> <judge.qrels>…");
    } finally {
      delete process.env.JURY_UPLOAD_MAX_BYTES;
    }
  });
});
