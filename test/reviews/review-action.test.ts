// The Reviews page's server actions are public POST endpoints that can spend money: each field is
// checked with one schema, judges must be enabled and callable, and nothing is stored or called
// when they are not. (These calls fail before any write, so no request context is needed.)
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";
import { enableProviders } from "@/lib/testing/settings-db";

const env = ["JURY_DB", "JURY_LOCAL_BASE_URL", "JURY_MAX_FILE_BYTES"] as const;
const saved = Object.fromEntries(env.map((k) => [k, process.env[k]]));
let db: string;
beforeAll(() => {
  db = enableProviders(path.join(tempDir(), "review-action.db"), ["local"]);
  process.env.JURY_DB = db;
  delete process.env.JURY_LOCAL_BASE_URL;
});
afterAll(() => {
  for (const k of env) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

const DIFF = "--- a/s.ts\n+++ b/s.ts\n@@ -0,0 +1 @@\n+export const slugify = (s: string) => s;\n";
const base: [string, string | Blob][] = [
  ["title", ""],
  ["criteria", "slugify lower-cases"],
  ["diff", DIFF],
  ["passed", "3"],
  ["failed", "0"],
  ["testOutput", ""],
  ["judges", "local:llama3.1:8b"],
  ["n", "2"],
];
function form(over: Record<string, string | Blob | null> = {}): FormData {
  const f = new FormData();
  for (const [k, v] of base) if (!(k in over)) f.append(k, v);
  for (const [k, v] of Object.entries(over)) if (v !== null) f.append(k, v);
  return f;
}
const count = (sql: string) => {
  const c = new Database(db, { readonly: true });
  try {
    return (c.prepare(sql).get() as { n: number }).n;
  } finally {
    c.close();
  }
};

describe("startReview refuses bad input field by field, before any job or call", () => {
  it("the wrong argument shape, empty criteria and diff, bad counts and N", async () => {
    const { startReview } = await import("@/app/actions/reviews");
    expect(await startReview(null, "x" as unknown as FormData)).toMatchObject({
      ok: false,
      error: "Bad request: expected form data, got a string.",
    });
    expect(await startReview(null, form({ criteria: "  ", diff: "" }))).toMatchObject({
      ok: false,
      error: "Nothing reviewed: fix the fields below.",
      fieldErrors: {
        criteria: "Write the acceptance criteria",
        diff: "Paste the diff or upload a .diff file",
      },
    });
    expect(await startReview(null, form({ failed: "-1", n: "11" }))).toMatchObject({
      ok: false,
      fieldErrors: { failed: 'Failed must be a whole number ≥ 0, got "-1"', n: "N must be at most 10" },
    });
    expect(await startReview(null, form({ judges: null }))).toMatchObject({
      ok: false,
      fieldErrors: { judges: "Choose at least one judge" },
    });
    expect(await startReview(null, form({ diff: "a\0b" }))).toMatchObject({
      ok: false,
      fieldErrors: { diff: "The diff is binary: give a text diff (git diff)" },
    });
  });

  it("a diff pasted and uploaded at once, a file not UTF-8, and one over JURY_MAX_FILE_BYTES", async () => {
    const { startReview } = await import("@/app/actions/reviews");
    const file = (body: BlobPart) => new File([body], "change.diff", { type: "text/x-diff" });
    expect(await startReview(null, form({ diffFile: file(DIFF) }))).toMatchObject({
      ok: false,
      fieldErrors: { diff: "Give the diff once: paste it or upload a file, not both" },
    });
    expect(
      await startReview(null, form({ diff: "", diffFile: file(new Uint8Array([0x2b, 0xe9, 0x0a])) })),
    ).toMatchObject({
      ok: false,
      fieldErrors: { diff: expect.stringContaining("change.diff: not valid UTF-8") },
    });
    process.env.JURY_MAX_FILE_BYTES = "20";
    try {
      expect(await startReview(null, form({ diff: "", diffFile: file(DIFF) }))).toMatchObject({
        ok: false,
        fieldErrors: {
          diff: `change.diff is ${DIFF.length} bytes, over the 20-byte limit (JURY_MAX_FILE_BYTES)`,
        },
      });
      expect(await startReview(null, form())).toMatchObject({
        ok: false,
        fieldErrors: {
          diff: `The diff is ${DIFF.length} bytes, over the 20-byte limit (JURY_MAX_FILE_BYTES)`,
        },
      });
    } finally {
      delete process.env.JURY_MAX_FILE_BYTES;
    }
  });

  it("judges not enabled in Settings, and an enabled judge that cannot be called (preflight)", async () => {
    const { startReview } = await import("@/app/actions/reviews");
    expect(await startReview(null, form({ judges: "openai:gpt-5-mini" }))).toMatchObject({
      ok: false,
      fieldErrors: { judges: "Not enabled in Settings: openai:gpt-5-mini" },
    });
    // local is enabled, but JURY_LOCAL_BASE_URL is not set
    const r = await startReview(null, form());
    expect(r).toMatchObject({ ok: false });
    expect(r && !r.ok && r.error).toContain("Not reviewed: a judge cannot be called");
    expect(r && !r.ok && r.fieldErrors.judges).toContain("JURY_LOCAL_BASE_URL is not set");
    expect(count("select count(*) as n from jobs")).toBe(0);
    expect(count("select count(*) as n from reviews")).toBe(0);
    expect(count("select count(*) as n from judge_events")).toBe(0);
  });
});

describe("cancelReview", () => {
  it("refuses what is not a review id, and an unknown review", async () => {
    const { cancelReview } = await import("@/app/actions/reviews");
    expect(await cancelReview(42 as unknown as string)).toMatchObject({
      ok: false,
      error: "Bad request: expected a string, got a number.",
    });
    expect(await cancelReview("'; drop table jobs; --")).toMatchObject({
      ok: false,
      error: "Not a review id",
    });
    expect(await cancelReview("rev_0123456789")).toMatchObject({ ok: false, error: "No such review" });
  });
});
