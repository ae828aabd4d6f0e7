// The verdict labels export of a run (/agreement/<run>/labels): every label with who gave it, as CSV
// and JSON, for any role that reads; a request with no actor is refused; a bad format or id is a 400.
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { OPEN_ACTOR } from "@/lib/auth/actor";
import { seedRun } from "@/lib/testing/agreement-run";
import { tempDir } from "@/lib/testing/fixtures";
import { actAs } from "@/lib/testing/request-context";

vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

let runId: string;
beforeAll(async () => {
  process.env.JURY_DB = path.join(tempDir(), "labels-export.db");
  const { getDb } = await import("@/db/client");
  runId = await seedRun(getDb());
  const { setLabel } = await import("@/app/actions/labels");
  actAs({ name: "ana", role: "annotator", via: "user" });
  await setLabel({ runId, caseId: "c1", criterionId: "helpful", passed: true, score: 8 });
  actAs({ name: "bo", role: "annotator", via: "user" });
  await setLabel({ runId, caseId: "c2", criterionId: "helpful", passed: false, labeller: "=bo" });
  actAs(OPEN_ACTOR);
});

const get = async (query: string, id = runId) => {
  const { GET } = await import("@/app/agreement/[id]/labels/route");
  return GET(new Request(`http://127.0.0.1/agreement/${id}/labels${query}`), {
    params: Promise.resolve({ id }),
  });
};

describe("/agreement/<run>/labels", () => {
  it("CSV: one row per label with its author (the default format), formula text guarded", async () => {
    actAs({ name: "vi", role: "viewer", via: "user" });
    try {
      const res = await get("");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${runId}-labels.csv"`);
      const lines = (await res.text()).trimEnd().split("\r\n");
      expect(lines[0]).toBe(
        "run_id,case_id,criterion_id,passed,score,source,author,labeller,note,updated_at",
      );
      expect(lines.slice(1).map((l) => l.split(",").slice(1, 8))).toEqual([
        ["c1", "helpful", "true", "8", "human", "ana", ""],
        ["c2", "helpful", "false", "", "human", "bo", '"\'=bo"'],
      ]);
    } finally {
      actAs(OPEN_ACTOR);
    }
  });

  it("JSON: the same rows", async () => {
    const res = await get("?format=json");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const rows = (await res.json()) as Record<string, unknown>[];
    expect(rows.map((r) => [r.case_id, r.passed, r.score, r.author])).toEqual([
      ["c1", true, 8, "ana"],
      ["c2", false, null, "bo"],
    ]);
  });

  it("refuses a request with no actor, a bad format, a bad or unknown run", async () => {
    actAs(null);
    try {
      expect((await get("")).status).toBe(403);
    } finally {
      actAs(OPEN_ACTOR);
    }
    expect((await get("?format=xml")).status).toBe(400);
    expect((await get("", "../x")).status).toBe(400);
    expect((await get("", "run_20990101_0000ffff")).status).toBe(404);
  });
});
