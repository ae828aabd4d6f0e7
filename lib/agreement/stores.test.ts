// An agreement import on both stores (SQLite, and PostgreSQL when JURY_TEST_DATABASE_URL names a
// server): the set and its report stored together, read back the same.
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getAgreementReport, listAgreementSets } from "@/db/queries/agreement";
import { freshStore, type Store, storeKinds } from "../testing/stores";
import { importSpecSchema } from "./job-spec";
import { importWork, newSetId, storedReport } from "./jobs";
import { importTrec, showAgreement } from "./service";

const ex = (...p: string[]) => path.join(path.resolve(__dirname, "../.."), "examples/agreement", ...p);
const ref = (p: string) => ({ name: path.basename(p), path: p });

describe.each(storeKinds())("an agreement import on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("an import's work stores the set with its report, which reads back as computed", async () => {
    const { db } = store;
    const spec = importSpecSchema.parse({
      setId: newSetId("trec"),
      format: "trec",
      gold: ref(ex("trec/gold.qrels")),
      judges: [ref(ex("trec/judge-a.qrels")), ref(ex("trec/judge-b.qrels"))],
      options: {},
    });
    const r = await importWork(db, spec);
    expect(r.report.judges.map((j) => j.judge)).toEqual(["judge-a", "judge-b"]);
    expect((await listAgreementSets(db)).map((s) => s.id)).toEqual([spec.setId]);
    expect((await getAgreementReport(db, spec.setId))?.kind).toBe("set");
    expect(await storedReport(db, spec.setId)).toEqual({
      kind: "set",
      report: JSON.parse(JSON.stringify(r.report)),
    });
    // a second import under the same id is refused whole: the first set and report stay as they were
    await expect(importWork(db, spec)).rejects.toThrow();
    expect((await listAgreementSets(db)).map((s) => s.id)).toEqual([spec.setId]);
  });

  it("a direct import computes the same figures, stored and shown", async () => {
    const { db } = store;
    const { setId, report } = await importTrec(db, ex("trec/gold.qrels"), [ex("trec/judge-a.qrels")]);
    expect(await showAgreement(db, setId)).toEqual({
      kind: "set",
      report: JSON.parse(JSON.stringify(report)),
    });
  });
});
