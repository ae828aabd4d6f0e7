// The fixtures in examples/agreement/ imported and shown with figures computed by hand (see the
// comments); and every kind of bad input refused with its file, line and field, nothing stored.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listAgreementSets } from "@/db/queries/agreement";
import { isJuryError } from "../errors";
import { tempDb, tempDir } from "../testing/fixtures";
import { judgeNameFromPath, parseJsonlImport, parseLlmbarImport, parseTrecImport } from "./imports";
import { importJsonl, importLlmbar, importTrec, showAgreement } from "./service";

const root = path.resolve(__dirname, "../..");
const ex = (...p: string[]) => path.join(root, "examples/agreement", ...p);

function problems(
  fn: () => unknown,
): { file: string; line: number | null; field: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    if (isJuryError(err) && err.code === "invalid:import")
      return (err.details?.problems ?? []) as ReturnType<typeof problems>;
    throw err;
  }
  throw new Error("expected the import to be refused");
}

/** problems() of an import that reads the store (a promise). */
async function importProblems(
  fn: () => Promise<unknown>,
): Promise<{ file: string; line: number | null; field: string; message: string }[]> {
  try {
    await fn();
  } catch (err) {
    if (isJuryError(err) && err.code === "invalid:import")
      return (err.details?.problems ?? []) as Awaited<ReturnType<typeof importProblems>>;
    throw err;
  }
  throw new Error("expected the import to be refused");
}

describe("TREC qrels import (examples/agreement/trec)", () => {
  it("shows per judge accuracy, κ, quadratic κ, binary κ at the cut and the confusion matrix, as computed by hand", async () => {
    const { db } = tempDb();
    const { setId, report } = await importTrec(db, ex("trec/gold.qrels"), [
      ex("trec/judge-a.qrels"),
      ex("trec/judge-b.qrels"),
    ]);
    expect(setId).toMatch(/^trec-/);
    expect(report.labels).toBe("graded");
    expect(report.items).toBe(13); // 12 gold pairs + judge-b's q4 d9, which has no gold
    expect(report.goldItems).toBe(12);
    const [a, b] = report.judges;
    expect(a.judge).toBe("judge-a");
    const pa = a.pointwise!;
    // confusion, rows gold 0–3, columns judge 0–3
    expect(pa.confusion).toEqual({
      categories: [0, 1, 2, 3],
      matrix: [
        [2, 1, 0, 0],
        [0, 2, 1, 0],
        [0, 1, 2, 0],
        [0, 0, 1, 2],
      ],
    });
    expect(pa.n).toBe(12);
    expect(pa.accuracy.value).toBe(8 / 12);
    // p_o = 8/12, p_e = 3·(2+4+4+2)/144 = 1/4 → κ = (2/3 − 1/4)/(3/4) = 5/9
    expect(pa.kappa.value).toBeCloseTo(5 / 9, 12);
    // observed Σ w·O = 4 (four misses by one grade); expected Σ w·E = 104/4 = 26 → κ_w = 1 − 4/26 = 11/13
    expect(pa.weightedKappa!.value).toBeCloseTo(11 / 13, 12);
    // binary at the default cut 2: 10 of 12 agree, 6 relevant each side → κ = (10/12 − 1/2)/(1/2) = 2/3
    expect(pa.binary!.cut).toBe(2);
    expect(pa.binary!.confusion.matrix).toEqual([
      [5, 1],
      [1, 5],
    ]);
    expect(pa.binary!.accuracy.value).toBe(10 / 12);
    expect(pa.binary!.kappa.value).toBeCloseTo(2 / 3, 12);
    for (const f of [pa.kappa, pa.weightedKappa!, pa.alpha]) {
      expect(f.n).toBe(12);
      expect(f.low as number).toBeLessThanOrEqual(f.value as number);
      expect(f.high as number).toBeGreaterThanOrEqual(f.value as number);
    }
    expect(pa.disagreements.map((d) => d.itemId)).toEqual(["q1 d2", "q2 d1", "q3 d1", "q3 d3"]);

    // judge-b: 10 of the 12 gold pairs; q2 d4 and q3 d1 missing (named, never guessed); q4 d9 not in gold
    expect(b.missing).toEqual(["q2 d4", "q3 d1"]);
    expect(b.noGold).toEqual(["q4 d9"]);
    const pb = b.pointwise!;
    expect(pb.n).toBe(10);
    expect(pb.accuracy.value).toBe(7 / 10);
    expect(pb.confusion.matrix).toEqual([
      [2, 0, 0, 0],
      [1, 1, 0, 0],
      [0, 0, 2, 1],
      [0, 0, 1, 2],
    ]);
    // p_o = 0.7, p_e = (2·3 + 2·1 + 3·3 + 3·3)/100 = 0.26 → κ = 0.44/0.74 = 22/37
    expect(pb.kappa.value).toBeCloseTo(22 / 37, 12);
    // observed 3; expected Σ_i r_i Σ_j (i−j)² c_j / N = (2·40 + 2·18 + 3·16 + 3·34)/10 = 26.6 → 1 − 3/26.6
    expect(pb.weightedKappa!.value).toBeCloseTo(118 / 133, 12);

    // the same figures from the stored set
    const shown = await showAgreement(db, setId);
    expect(shown.kind).toBe("set");
    expect(JSON.parse(JSON.stringify(shown.report))).toEqual(JSON.parse(JSON.stringify(report)));
  });

  it("takes the cut, the scale and judge names", () => {
    const gold = { name: "g.qrels", text: "q 0 a 4\nq 0 b 1\nq 0 c 2\n" };
    const judge = { name: "j.qrels", text: "q 0 a 3\nq 0 b 0\nq 0 c 2\n" };
    const p = parseTrecImport(gold, [judge], { scale: [0, 4], cut: 3, names: ["mine"] });
    expect(p.options).toMatchObject({ scale: [0, 4], cut: 3 });
    expect(p.judgments.map((j) => j.judge)).toEqual(["mine", "mine", "mine"]);
  });

  it("refuses bad lines with file, line and field, and stores nothing", async () => {
    const { db } = tempDb();
    const dir = tempDir();
    const gold = path.join(dir, "gold.qrels");
    const judge = path.join(dir, "judge.qrels");
    fs.writeFileSync(gold, "q1 0 d1 3\nq1 0 d2\nq1 0 d3 high\nq1 0 d4 7\nq1 0 d1 2\n");
    fs.writeFileSync(judge, "q1 0 d1 3\n");
    const ps = await importProblems(() => importTrec(db, gold, [judge]));
    expect(ps).toEqual([
      { file: gold, line: 2, field: "line", message: 'expected 4 fields "qid iter docid label", got 3' },
      { file: gold, line: 3, field: "field 4 (label)", message: '"high" is not a whole number' },
      { file: gold, line: 4, field: "field 4 (label)", message: "7 is outside the scale 0–3 (--scale)" },
      {
        file: gold,
        line: 5,
        field: "fields 1 and 3 (qid, docid)",
        message: 'query "q1", document "d1" is already labelled at line 1',
      },
    ]);
    expect(listAgreementSets(db)).toEqual([]);
    // a file that cannot be read, a duplicate judge name, no judge file
    expect(
      (await importProblems(() => importTrec(db, path.join(dir, "nope.qrels"), [judge])))[0],
    ).toMatchObject({
      file: path.join(dir, "nope.qrels"),
      field: "(file)",
    });
    expect(
      problems(() =>
        parseTrecImport({ name: "g", text: "q 0 d 1\n" }, [
          { name: "x/j.qrels", text: "" },
          { name: "y/j.qrels", text: "" },
        ]),
      ),
    ).toContainEqual(expect.objectContaining({ file: "y/j.qrels", field: "judge name" }));
    expect(problems(() => parseTrecImport({ name: "g", text: "q 0 d 1\n" }, []))[0].field).toBe("(judges)");
  });
});

describe("LLMBar import (examples/agreement/llmbar)", () => {
  it("shows accuracy per order, their mean and positional agreement exactly as computed by hand", async () => {
    const { db } = tempDb();
    const { setId, report } = await importLlmbar(db, ex("llmbar/dataset.json"), [
      ex("llmbar/evaluators/GPT-4/Vanilla/result.json"),
      ex("llmbar/evaluators/Biased/FirstAlways/result.json"),
    ]);
    expect(setId).toMatch(/^llmbar-/);
    expect(report.labels).toBe("pairwise");
    expect(report.goldItems).toBe(12);
    const byName = Object.fromEntries(report.judges.map((j) => [j.judge, j]));
    expect(Object.keys(byName).sort()).toEqual(["Biased/FirstAlways", "GPT-4/Vanilla"]);

    // GPT-4/Vanilla (winners, original/swapped, gold): see examples/agreement/README.md
    const v = byName["GPT-4/Vanilla"].pairwise!;
    expect(v.items).toBe(12);
    expect([v.accuracy.original.value, v.accuracy.original.n]).toEqual([8 / 12, 12]);
    expect([v.accuracy.swapped.value, v.accuracy.swapped.n]).toEqual([7 / 12, 12]);
    expect(v.accuracy.mean.value).toBeCloseTo(15 / 24, 12);
    expect(v.accuracy.both.value).toBe(6 / 12);
    // same usable winner in both orders: items 1, 2, 4, 6, 7, 8, 10, 12
    expect([v.positionalAgreement.value, v.positionalAgreement.n]).toEqual([8 / 12, 12]);
    // 21 answers named a winner; 13 of them the output shown first
    expect([v.firstPositionWins.value, v.firstPositionWins.n]).toEqual([13 / 21, 21]);
    expect(v.unusable).toEqual({ original: 1, swapped: 2, both: 1 });
    expect(v.inconsistent.map((r) => r.itemId)).toEqual(["3", "5", "9", "11"]);
    // LLMBar's own statistics.json counts (its evaluate.py): a null winner is wrong, and two null
    // winners count as "equal" — so its positional agreement is 9/12 where Jury's is 8/12
    expect(byName["GPT-4/Vanilla"].llmbar).toEqual({
      n: 12,
      correct_False: 8,
      correct_True: 7,
      correct_average: 15 / 24,
      correct_both: 6,
      equal: 9,
    });
    expect(byName["GPT-4/Vanilla"].unusable).toEqual(["9", "11"]);

    // an evaluator that always prefers the output shown first
    const f = byName["Biased/FirstAlways"].pairwise!;
    expect(f.accuracy.original.value).toBe(6 / 12);
    expect(f.accuracy.swapped.value).toBe(6 / 12);
    expect(f.positionalAgreement.value).toBe(0);
    expect(f.firstPositionWins.value).toBe(1);
    expect(f.firstPositionWins.n).toBe(24);
    expect(f.positionalAgreement.high as number).toBeLessThan(0.3);
  });

  it("reads the gold from the result.json alone when no dataset is given, and names judges by their folder", async () => {
    const { db } = tempDb();
    const { report } = await importLlmbar(db, null, [ex("llmbar/evaluators/GPT-4/Vanilla/result.json")]);
    expect(report.judges[0].judge).toBe("GPT-4/Vanilla");
    expect(report.judges[0].pairwise!.accuracy.original.value).toBe(8 / 12);
    expect(judgeNameFromPath("runs/LLMBar/Natural/evaluators/ChatGPT/Swap_CoT/result.json")).toBe(
      "ChatGPT/Swap_CoT",
    );
    expect(judgeNameFromPath("mine/result.json")).toBe("mine");
  });

  it("refuses a bad result.json with the file, line and field of each problem, and stores nothing", async () => {
    const { db } = tempDb();
    const dir = tempDir();
    const dataset = JSON.parse(fs.readFileSync(ex("llmbar/dataset.json"), "utf8")).slice(0, 3);
    const dFile = path.join(dir, "dataset.json");
    fs.writeFileSync(dFile, JSON.stringify(dataset, null, 2));
    const results = dataset.map((d: object) => ({
      ...d,
      results: [{ "swap = False": { winner: "1" }, "swap = True": { winner: "2" } }],
    }));
    results[1].results[0]["swap = True"].winner = "3";
    results[2].label = 2; // the dataset says 1
    delete results[0].results[0]["swap = False"];
    const rFile = path.join(dir, "result.json");
    const text = JSON.stringify(results, null, 2);
    fs.writeFileSync(rFile, text);
    const lineOf = (needle: string, from = 0) => text.slice(0, text.indexOf(needle, from)).split("\n").length;
    const dText = JSON.stringify(dataset, null, 2);
    const datasetLabelLine = dText
      .slice(0, dText.indexOf('"label"', dText.indexOf(dataset[2].input)))
      .split("\n").length;
    const ps = await importProblems(() => importLlmbar(db, dFile, [rFile]));
    expect(ps).toEqual([
      {
        file: rFile,
        line: lineOf('"results"') + 1,
        field: '[0].results[0]["swap = False"]',
        message: "is missing",
      },
      {
        file: rFile,
        line: lineOf('"winner": "3"'),
        field: '[1].results[0]["swap = True"].winner',
        message: 'must be "1", "2" or null, got "3"',
      },
      {
        file: rFile,
        line: lineOf('"label": 2', text.indexOf(dataset[2].input)),
        field: "[2].label",
        message: `is 2, but [2].label of ${dFile} (line ${datasetLabelLine}) is 1`,
      },
    ]);
    // JSON that does not parse: its line
    fs.writeFileSync(rFile, '[\n  {"input": "x",\n  "results": [}\n]');
    expect((await importProblems(() => importLlmbar(db, dFile, [rFile])))[0]).toMatchObject({
      file: rFile,
      line: 3,
      field: "(JSON)",
    });
    // a dataset label that is not 1 or 2, a missing output
    const bad = parseLlmbarProblems([{ input: "x", output_1: "a", label: 3 }]);
    expect(bad).toEqual([
      { file: "dataset.json", line: 1, field: "[0].output_2", message: "is missing" },
      { file: "dataset.json", line: 1, field: "[0].label", message: "must be 1 or 2, got 3" },
    ]);
    expect(listAgreementSets(db)).toEqual([]);
  });
});

function parseLlmbarProblems(items: unknown[]) {
  return problems(() =>
    parseLlmbarImport({ name: "dataset.json", text: JSON.stringify(items) }, [
      {
        name: "r/result.json",
        text: JSON.stringify(
          items.map((i) => ({
            ...(i as object),
            results: [{ "swap = False": { winner: "1" }, "swap = True": { winner: "1" } }],
          })),
        ),
      },
    ]),
  );
}

describe("Jury's JSONL import", () => {
  it("imports pass/fail judgments with gold and names what a judge did not label (examples/agreement/jsonl)", async () => {
    const { db } = tempDb();
    const { report } = await importJsonl(db, ex("jsonl/judgments.jsonl"));
    expect(report.labels).toBe("pass_fail");
    const byName = Object.fromEntries(report.judges.map((j) => [j.judge, j]));
    // strict: 5 of 6 right; confusion rows gold pass, fail: [[2, 1], [0, 3]]
    const s = byName.strict.pointwise!;
    expect(s.accuracy.value).toBe(5 / 6);
    expect(s.confusion).toEqual({
      categories: [1, 0],
      matrix: [
        [2, 1],
        [0, 3],
      ],
    });
    // p_o = 5/6, p_e = (3·2 + 3·4)/36 = 1/2 → κ = 2/3
    expect(s.kappa.value).toBeCloseTo(2 / 3, 12);
    expect(byName.lenient.missing).toEqual(["c6"]);
    expect(byName.lenient.pointwise!.n).toBe(5);
    expect(byName.lenient.pointwise!.accuracy.value).toBe(4 / 5);
  });

  it("imports graded scores with a scale and a cut", () => {
    const text = [
      '{"item_id": 1, "judge": "j", "score": 3, "gold": 3}',
      '{"item_id": 2, "judge": "j", "score": 1, "gold": 2}',
      '{"item_id": 3, "gold": 0}',
      '{"item_id": 3, "judge": "j", "score": 0}',
    ].join("\n");
    const p = parseJsonlImport({ name: "s.jsonl", text }, { scale: [0, 3], cut: 2 });
    expect(p.options).toMatchObject({ kind: "graded", scale: [0, 3], cut: 2 });
    expect(p.items.map((i) => [i.itemId, i.gold])).toEqual([
      ["1", 3],
      ["2", 2],
      ["3", 0],
    ]);
  });

  it("refuses each bad line with its line and field", () => {
    const text = [
      '{"item_id": "a", "judge": "j", "label": true, "gold": false}',
      "not json",
      '{"judge": "j", "label": true}',
      '{"item_id": "b", "judge": "j", "label": "maybe", "gold": true}',
      '{"item_id": "a", "judge": "j", "label": false}',
      '{"item_id": "c", "judge": "j", "score": 3, "gold": 2}',
      '{"item_id": "d", "judge": "j", "label": true}',
      '{"item_id": "a", "gold": true}',
      '{"item_id": "e", "judge": "j", "label": true, "gold": true, "extra": 1}',
    ].join("\n");
    // complete, and in line order (the item without gold on line 7 is named too)
    expect(problems(() => parseJsonlImport({ name: "x.jsonl", text }))).toEqual([
      { file: "x.jsonl", line: 2, field: "(JSON)", message: "not a valid JSON object" },
      { file: "x.jsonl", line: 3, field: "item_id", message: "is missing" },
      {
        file: "x.jsonl",
        line: 4,
        field: "label",
        message: 'must be pass/fail: true, false, 1, 0, "pass" or "fail"; got "maybe"',
      },
      { file: "x.jsonl", line: 5, field: "judge", message: '"j" already judged item "a" at line 1' },
      {
        file: "x.jsonl",
        line: 6,
        field: "score",
        message: "line 1 has a pass/fail label: one file holds one kind",
      },
      { file: "x.jsonl", line: 7, field: "gold", message: 'item "d" has no gold label on any line' },
      {
        file: "x.jsonl",
        line: 8,
        field: "gold",
        message: 'is true, but line 1 gives item "a" another gold label',
      },
      {
        file: "x.jsonl",
        line: 9,
        field: "extra",
        message: "unknown field (item_id, judge, label, score, gold)",
      },
    ]);
    expect(
      problems(() =>
        parseJsonlImport({ name: "y.jsonl", text: '{"item_id": "d", "judge": "j", "label": true}' }),
      ),
    ).toEqual([
      { file: "y.jsonl", line: 1, field: "gold", message: 'item "d" has no gold label on any line' },
    ]);
  });
});

describe("LLMBar set names", () => {
  it("names a set after the folder LLMBar keeps it in, or plainly for an upload", () => {
    const items = [{ input: "x", output_1: "a", output_2: "b", label: 1 }];
    const result = (name: string) => ({
      name,
      text: JSON.stringify(
        items.map((i) => ({
          ...i,
          results: [{ "swap = False": { winner: "1" }, "swap = True": { winner: "1" } }],
        })),
      ),
    });
    const ds = (name: string) => ({ name, text: JSON.stringify(items) });
    expect(parseLlmbarImport(ds("Dataset/LLMBar/Natural/dataset.json"), [result("r/result.json")]).name).toBe(
      "LLMBar Natural",
    );
    expect(parseLlmbarImport(ds("dataset.json"), [result("result.json")]).name).toBe("LLMBar");
    expect(parseLlmbarImport(null, [result("Natural/evaluators/GPT-4/CoT/result.json")]).name).toBe(
      "LLMBar Natural",
    );
  });
});

describe("nesting depth", () => {
  const deep = (n: number) => `${"[".repeat(n)}1${"]".repeat(n)}`;
  it("a JSONL line nested 10^5 deep is refused with its file, line and field, not a stack overflow", () => {
    const text = [
      '{"item_id": "a", "judge": "j", "label": true, "gold": true}',
      `{"item_id": "b", "judge": "j", "label": ${deep(100_000)}, "gold": true}`,
      `{"item_id": "c", "gold": {"x": ${deep(150)}}}`,
    ].join("\n");
    expect(problems(() => parseJsonlImport({ name: "deep.jsonl", text }))).toEqual([
      { file: "deep.jsonl", line: 2, field: "label[0][0]…", message: "nested deeper than 100 levels" },
      { file: "deep.jsonl", line: 3, field: "gold.x[0]…", message: "nested deeper than 100 levels" },
    ]);
  });

  it("an LLMBar file nested too deep names its file, line and path", () => {
    const text = `[\n{"input": "x",\n "results": ${deep(20_000)}}\n]`;
    const ps = problems(() => parseLlmbarImport(null, [{ name: "r/result.json", text }]));
    expect(ps).toHaveLength(1);
    expect(ps[0]).toMatchObject({ file: "r/result.json", line: 3, field: "(JSON)" });
    expect(ps[0].message).toContain("nested deeper than 100 levels (in [0].results[0]…)");
  });
});

describe("large files", () => {
  it("a 150,000-line graded JSONL without --scale takes its scale from the values (no stack overflow)", () => {
    const lines: string[] = [];
    for (let i = 0; i < 150_000; i++)
      lines.push(`{"item_id":"i${i}","judge":"j","score":${i % 5},"gold":${(i + 1) % 5}}`);
    const p = parseJsonlImport({ name: "big.jsonl", text: lines.join("\n") });
    expect(p.options).toMatchObject({ kind: "graded", scale: [0, 4] });
    expect(p.items).toHaveLength(150_000);
  });
});
