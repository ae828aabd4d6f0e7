// Panels of imported label sets (TREC qrels) against the gold labels: agreement by panel size with
// intervals, and one panel's κ recomputed by hand from its combined labels.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { importTrec } from "../agreement/service";
import { hasErrorCode } from "../errors";
import { tempDir } from "../testing/fixtures";
import { runJurySync } from "../testing/run-jury";
import { optimizeImport } from "./import-panel";

const ex = (f: string) => path.resolve(__dirname, "../../examples/agreement/trec", f);

async function imported() {
  const dir = tempDir();
  const c = path.join(dir, "judge-c.qrels");
  // a third set: right on q1 and q3, a grade low on q2
  fs.writeFileSync(
    c,
    ["q1 0 d1 3", "q1 0 d2 2", "q1 0 d3 0", "q1 0 d4 1", "q2 0 d1 0", "q2 0 d2 2", "q2 0 d3 1", "q2 0 d4 0"]
      .concat(["q3 0 d1 1", "q3 0 d2 1", "q3 0 d3 3", "q3 0 d4 2"])
      .join("\n"),
  );
  const file = path.join(dir, "import.db");
  const db = createDb(file);
  const { setId } = await importTrec(db, ex("gold.qrels"), [ex("judge-a.qrels"), ex("judge-b.qrels"), c]);
  return { db, file, setId };
}

describe("panels of imported label sets", () => {
  it("measures every combination against gold and reports agreement by panel size with intervals", async () => {
    const { db, setId } = await imported();
    const r = await optimizeImport(db, setId);
    expect(r.sets).toEqual(["judge-a", "judge-b", "judge-c"]);
    expect(r.labels).toBe("graded");
    expect(r.goldItems).toBe(12);
    expect(r.panels).toHaveLength(7);
    expect(r.bySize.map((s) => [s.size, s.panels])).toEqual([
      [1, 3],
      [2, 3],
      [3, 1],
    ]);
    for (const s of r.bySize) {
      expect(s.bestKappa.n).toBe(12);
      expect(s.bestKappa.low).not.toBeNull();
      expect(s.bestKappa.high).not.toBeNull();
      expect(s.bestKappa.low as number).toBeLessThanOrEqual(s.bestKappa.value as number);
      expect(s.bestAccuracy.method).toBe("wilson");
    }
    expect(r.all).toBe("judge-a + judge-b + judge-c");
    expect(r.combine).toMatch(/mean label .* rounded half up/);
  });

  it("judge-a + judge-b: κ by hand from the combined labels (mean rounded half up)", async () => {
    const { db, setId } = await imported();
    const p = (await optimizeImport(db, setId)).panels.find((x) => x.id === "judge-a + judge-b");
    // items in gold order; b has no label for q2 d4 and q3 d1, so a's alone counts there
    const gold = [3, 2, 0, 1, 0, 3, 2, 0, 1, 1, 3, 2];
    const combined = [3, 2, 0, 1, 1, 3, 3, 0, 2, 1, 3, 2]; // e.g. q1 d1: (3 + 2) / 2 = 2.5 → 3
    const n = 12;
    let agree = 0;
    for (let i = 0; i < n; i++) if (gold[i] === combined[i]) agree++;
    let pe = 0;
    for (const g of [0, 1, 2, 3])
      pe += (gold.filter((x) => x === g).length / n) * (combined.filter((x) => x === g).length / n);
    const po = agree / n;
    expect(po).toBe(9 / 12);
    // gold 0:3 1:3 2:3 3:3; combined 0:3 1:2 2:3 3:4 → pe = (3·3 + 3·2 + 3·3 + 3·4) / 144 = 36/144
    expect(pe).toBeCloseTo(36 / 144, 15);
    expect(p?.n).toBe(12);
    expect(p?.accuracy.value).toBe(po);
    expect(p?.kappa.value).toBeCloseTo((po - pe) / (1 - pe), 12);
    expect(p?.kappa.value).toBeCloseTo(2 / 3, 12);
  });

  it("jury panel optimize <import> prints agreement by panel size; a pairwise set is refused", async () => {
    const { file, setId } = await imported();
    const r = runJurySync(["panel", "optimize", setId], { env: { JURY_DB: file } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("3 label sets, 12 gold items");
    expect(r.stdout).toMatch(/\n\s+2\s+3\s+/);
    const json = JSON.parse(
      runJurySync(["panel", "optimize", setId, "--json"], { env: { JURY_DB: file } }).stdout,
    );
    expect(json.kind).toBe("import");
    expect(json.bySize).toHaveLength(3);
    const { db } = await imported();
    db.$client.prepare("update agreement_sets set kind = 'llmbar'").run();
    try {
      await optimizeImport(db, db.$client.prepare("select id from agreement_sets").pluck().get() as string);
      throw new Error("not refused");
    } catch (err) {
      expect(hasErrorCode(err, "invalid:panel")).toBe(true);
    }
  });
});
