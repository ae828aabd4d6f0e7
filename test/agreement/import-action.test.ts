// The Agreement page's upload: the fixtures imported as the CLI imports them; a bad file refused
// naming file, line and field, and nothing stored.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";

vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

const root = path.resolve(__dirname, "../..");
const ex = (...p: string[]) => path.join(root, "examples/agreement", ...p);
const file = (p: string, name = path.basename(p)) => new File([fs.readFileSync(p)], name);

beforeAll(() => {
  process.env.JURY_DB = path.join(tempDir(), "import.db");
});

function form(fields: Record<string, string>, files: Record<string, File[]>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  for (const [k, list] of Object.entries(files)) for (const f of list) fd.append(k, f);
  return fd;
}

describe("importAgreement (the Agreement page's upload)", () => {
  it("imports TREC qrels and LLMBar files with the figures the CLI shows", async () => {
    const { importAgreement } = await import("@/app/actions/agreement");
    const { showSet } = await import("@/lib/agreement/service");
    const { getDb } = await import("@/db/client");
    const trec = await importAgreement(
      null,
      form(
        { format: "trec", names: "", cut: "", scale: "" },
        {
          gold: [file(ex("trec/gold.qrels"))],
          judges: [file(ex("trec/judge-a.qrels")), file(ex("trec/judge-b.qrels"))],
        },
      ),
    );
    expect(trec).toMatchObject({ ok: true });
    if (!trec?.ok) return;
    const r = (await showSet(getDb(), trec.data.setId))!;
    expect(r.judges.map((j) => j.judge)).toEqual(["judge-a", "judge-b"]);
    expect(r.judges[0].pointwise!.weightedKappa!.value).toBeCloseTo(11 / 13, 12);

    const llmbar = await importAgreement(
      null,
      form(
        { format: "llmbar", names: "GPT-4/Vanilla, Biased/FirstAlways", cut: "", scale: "" },
        {
          gold: [file(ex("llmbar/dataset.json"))],
          judges: [
            file(ex("llmbar/evaluators/GPT-4/Vanilla/result.json")),
            file(ex("llmbar/evaluators/Biased/FirstAlways/result.json")),
          ],
        },
      ),
    );
    expect(llmbar).toMatchObject({ ok: true });
    if (!llmbar?.ok) return;
    const l = (await showSet(getDb(), llmbar.data.setId))!;
    const v = l.judges.find((j) => j.judge === "GPT-4/Vanilla")!.pairwise!;
    expect([v.accuracy.original.value, v.accuracy.swapped.value, v.positionalAgreement.value]).toEqual([
      8 / 12,
      7 / 12,
      8 / 12,
    ]);
  });

  it("refuses bad fields and bad files, storing nothing", async () => {
    const { importAgreement } = await import("@/app/actions/agreement");
    const { listAgreementSets } = await import("@/db/queries/agreement");
    const { getDb } = await import("@/db/client");
    const before = (await listAgreementSets(getDb())).length;
    expect(
      await importAgreement(null, form({ format: "csv", names: "", cut: "", scale: "" }, {})),
    ).toMatchObject({
      ok: false,
      fieldErrors: { format: expect.any(String) },
    });
    expect(
      await importAgreement(null, form({ format: "trec", names: "", cut: "x", scale: "3-0" }, {})),
    ).toMatchObject({
      ok: false,
      fieldErrors: { cut: expect.any(String), scale: expect.any(String) },
    });
    expect(
      await importAgreement(
        null,
        form({ format: "trec", names: "", cut: "", scale: "" }, { gold: [file(ex("trec/gold.qrels"))] }),
      ),
    ).toMatchObject({ ok: false, fieldErrors: { judges: expect.any(String) } });
    const bad = await importAgreement(
      null,
      form(
        { format: "trec", names: "", cut: "", scale: "" },
        { gold: [file(ex("trec/gold.qrels"))], judges: [new File(["q1 0 d1 7\n"], "judge.qrels")] },
      ),
    );
    expect(bad).toMatchObject({
      ok: false,
      error: expect.stringContaining("judge.qrels:1: field 4 (label): 7 is outside the scale 0–3"),
    });
    const latin1 = await importAgreement(
      null,
      form(
        { format: "jsonl", names: "", cut: "", scale: "" },
        { judges: [new File([new Uint8Array([0xff, 0x41, 0xe9])], "x.jsonl")] },
      ),
    );
    expect(latin1).toMatchObject({ ok: false, fieldErrors: { judges: expect.stringContaining("UTF-8") } });
    expect(await importAgreement(null, "nope" as unknown as FormData)).toMatchObject({
      ok: false,
      error: expect.stringContaining("Bad request"),
    });
    expect((await listAgreementSets(getDb())).length).toBe(before);
  });
});
