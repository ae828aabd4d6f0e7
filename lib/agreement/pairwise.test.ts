// The pairwise criterion on the scripted server: a judge that always prefers whichever output is
// shown first shows it in the audit (positional agreement 0, accuracy differing by order, first-
// position wins 100 %); a fair judge does not. Also the prompt, the parse and the loader.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAgreementJudgments, listAgreementSets } from "@/db/queries/agreement";
import type { PairwiseCriterion } from "../criteria/definition";
import { isJuryError } from "../errors";
import type { Settings } from "../settings/schema";
import { settingsFor, tempDb, tempDir } from "../testing/fixtures";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "../testing/scripted-server";
import { buildPairwisePrompt, PAIRWISE_SYSTEM_PROMPT, parsePairwise, positionAudit } from "./pairwise";
import { loadPairwiseSuite, runPairwise } from "./pairwise-runner";

const root = path.resolve(__dirname, "../..");
const suiteDir = path.join(root, "examples/agreement/pairwise");

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

function settings(): Settings {
  const s = settingsFor(server.baseURL);
  return { ...s, providers: { ...s.providers, local: { enabled: true, models: ["first", "fair"] } } };
}

/** The text between a <data name="…"> tag and its end. */
const block = (text: string, name: string) =>
  new RegExp(`<data name="${name}">\\n([\\s\\S]*?)\\n</data>`).exec(text)?.[1] ?? "";

/**
 * local:first always answers A (the output shown first). local:fair knows the answer: it reads the
 * suite's gold and answers whichever letter now shows the better output.
 */
function script(gold: Map<string, { better: string }>) {
  return (req: ScriptRequest) => {
    if (req.model === "first") return { json: { winner: "A", reasoning: "the first one" } };
    const input = block(req.text, "input");
    const a = block(req.text, "output_a");
    const better = gold.get(input)?.better;
    return { json: { winner: a === better ? "A" : "B", reasoning: "the better one" } };
  };
}

describe("pairwise criterion and the position-bias audit", () => {
  it("a judge that prefers whichever output comes first: agreement 0, accuracy differs by order, first wins 100 %", async () => {
    const suite = loadPairwiseSuite(suiteDir);
    expect(suite.items).toHaveLength(12);
    const gold = new Map(suite.items.map((i) => [i.input, { better: i.gold === 1 ? i.output1 : i.output2 }]));
    server.setScript(script(gold));
    const { db } = tempDb();
    const before = server.requests.length;
    const { setId, report } = await runPairwise(db, settings(), suite, {
      judges: ["local:first", "local:fair"],
    });
    // 12 items × 2 judges × 2 orders
    expect(server.requests.length - before).toBe(48);
    expect(report.set.kind).toBe("pairwise");
    const byName = Object.fromEntries(report.judges.map((j) => [j.judge, j.pairwise!]));

    const first = byName["local:first"];
    const ones = suite.items.filter((i) => i.gold === 1).length;
    expect(first.positionalAgreement.value).toBe(0);
    expect(first.positionalAgreement.n).toBe(12);
    expect(first.firstPositionWins.value).toBe(1);
    expect(first.firstPositionWins.n).toBe(24);
    // in the original order output 1 is first: right exactly where output 1 is better; swapped, the reverse
    expect(first.accuracy.original.value).toBe(ones / 12);
    expect(first.accuracy.swapped.value).toBe((12 - ones) / 12);
    expect(first.accuracy.both.value).toBe(0);
    expect(first.inconsistent).toHaveLength(12);
    expect([ones, first.accuracy.original.value, first.accuracy.swapped.value]).toEqual([8, 8 / 12, 4 / 12]);
    for (const f of [first.positionalAgreement, first.accuracy.original, first.accuracy.swapped])
      expect(f.low).not.toBeNull();

    const fair = byName["local:fair"];
    expect(fair.positionalAgreement.value).toBe(1);
    expect(fair.accuracy.original.value).toBe(1);
    expect(fair.accuracy.swapped.value).toBe(1);
    expect(fair.firstPositionWins.value).toBe(
      (ones + (12 - ones)) / 24, // right in both orders: first exactly half the time over the two orders
    );

    // stored whole: every answer with its order and raw reply
    const stored = getAgreementJudgments(db, setId);
    expect(stored).toHaveLength(48);
    expect(
      stored.filter((j) => j.judge === "local:first" && j.order === "swapped").every((j) => j.label === 2),
    ).toBe(true);
    expect(listAgreementSets(db).map((s) => s.id)).toEqual([setId]);

    // a second run answers from the cache: no call made
    const again = server.requests.length;
    await runPairwise(db, settings(), suite, { judges: ["local:first"] });
    expect(server.requests.length).toBe(again);
  });

  it("one order only when asked; an unusable answer is counted, never guessed", async () => {
    server.setScript(() => ({ text: "I cannot decide between them." }));
    const { db } = tempDb();
    const suite = loadPairwiseSuite(suiteDir);
    suite.items = suite.items.slice(0, 3);
    const { report } = await runPairwise(db, settings(), suite, {
      judges: ["local:fair"],
      bothOrders: false,
      noCache: true,
    });
    const a = report.judges[0];
    expect(a.pairwise!.unusable).toEqual({ original: 3, swapped: 0, both: 0 });
    expect(a.pairwise!.accuracy.original.value).toBe(0);
    expect(a.pairwise!.accuracy.swapped.n).toBe(0);
    expect(a.pairwise!.positionalAgreement.n).toBe(0);
    expect(a.unusable).toEqual(["p01", "p02", "p03"]);
  });

  it("refuses a judge that cannot be called before anything is stored", async () => {
    const { db } = tempDb();
    const s = settings();
    const off = { ...s, providers: { ...s.providers, local: { ...s.providers.local, enabled: false } } };
    const before = server.requests.length;
    await expect(
      runPairwise(db, off, loadPairwiseSuite(suiteDir), { judges: ["local:first"] }),
    ).rejects.toSatisfy((e: unknown) => isJuryError(e) && e.code === "invalid:judges");
    expect(server.requests.length).toBe(before);
    expect(listAgreementSets(db)).toEqual([]);
  });
});

describe("prompt, parse, loader", () => {
  const c: PairwiseCriterion = {
    id: "better",
    name: "better",
    version: "1",
    description: "d",
    type: "pairwise",
    prompt_template: "Which output answers the question better?",
    allow_tie: false,
    both_orders: true,
    parameters: {},
    tags: [],
  };
  const item = { input: "Q", output1: "one", output2: "two" };

  it("shows output 1 first in the original order and output 2 first when swapped", () => {
    const o = buildPairwisePrompt(c, item, "original");
    expect(o.system).toBe(PAIRWISE_SYSTEM_PROMPT);
    expect(block(o.prompt, "output_a")).toBe("one");
    expect(block(o.prompt, "output_b")).toBe("two");
    const s = buildPairwisePrompt(c, item, "swapped");
    expect(block(s.prompt, "output_a")).toBe("two");
    expect(o.schema).toMatchObject({ properties: { winner: { enum: ["A", "B"] } } });
    expect(buildPairwisePrompt({ ...c, allow_tie: true }, item, "original").schema).toMatchObject({
      properties: { winner: { enum: ["A", "B", "tie"] } },
    });
  });

  it("maps A and B back to the item's numbering, and refuses a tie that is not allowed", () => {
    expect(parsePairwise('{"winner": "A", "reasoning": "r"}', "original", false)).toEqual({
      ok: true,
      winner: 1,
      reasoning: "r",
    });
    expect(parsePairwise('{"winner": "A"}', "swapped", false)).toMatchObject({ winner: 2 });
    expect(parsePairwise("Output (b)", "swapped", false)).toMatchObject({ winner: 1 });
    expect(parsePairwise('{"winner": "tie"}', "original", true)).toMatchObject({ winner: 0 });
    expect(parsePairwise('{"winner": "tie"}', "original", false)).toMatchObject({ ok: false });
    expect(parsePairwise('{"winner": "C"}', "original", false)).toMatchObject({ ok: false });
  });

  it("the audit counts ties apart from first-position wins, and two ties agree", () => {
    const a = positionAudit([
      { itemId: "1", gold: 0, original: 0, swapped: 0 },
      { itemId: "2", gold: 1, original: 1, swapped: 1 },
    ]);
    expect(a.positionalAgreement.value).toBe(1);
    expect(a.ties).toEqual({ original: 1, swapped: 1 });
    expect(a.firstPositionWins.n).toBe(2);
    expect(a.firstPositionWins.value).toBe(0.5);
    expect(a.accuracy.original.value).toBe(1);
  });

  it("names each problem of a pairwise suite with its file, line and field", () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, "criterion.json"),
      JSON.stringify({ id: "x", type: "pairwise" }, null, 2),
    );
    fs.writeFileSync(
      path.join(dir, "dataset.json"),
      JSON.stringify([{ input: "q", output_1: "a", output_2: "b", label: 0 }], null, 2),
    );
    try {
      loadPairwiseSuite(dir);
      expect.unreachable();
    } catch (err) {
      const ps = (err as { details: { problems: { file: string; field: string; line: number | null }[] } })
        .details.problems;
      expect(ps.map((p) => [path.basename(p.file), p.field])).toEqual(
        expect.arrayContaining([
          ["criterion.json", "name"],
          ["criterion.json", "prompt_template"],
          ["dataset.json", "[0].label"],
        ]),
      );
      expect(ps.find((p) => p.field === "[0].label")?.line).toBe(6);
    }
  });
});

describe("the memory judge under two shuffles", () => {
  it("per-query Jaccard of the kept sets, their mean with an interval, the identical share; failed queries named apart", async () => {
    const { jaccard, shuffleConsistency } = await import("./shuffle");
    expect(jaccard(["a", "b"], ["b", "c"])).toBe(1 / 3);
    expect(jaccard([], [])).toBe(1);
    const s = shuffleConsistency(
      [
        { queryId: "q1", retrieved: ["a", "b"], error: null },
        { queryId: "q2", retrieved: ["a"], error: null },
        { queryId: "q3", retrieved: ["x"], error: null },
        { queryId: "q4", retrieved: [], error: "timeout" },
      ],
      [
        { queryId: "q1", retrieved: ["b", "a"], error: null },
        { queryId: "q2", retrieved: ["a", "c"], error: null },
        { queryId: "q3", retrieved: ["y"], error: null },
        { queryId: "q4", retrieved: [], error: null },
        { queryId: "q5", retrieved: [], error: null },
      ],
    );
    expect(s.perQuery.map((q) => [q.queryId, q.jaccard])).toEqual([
      ["q1", 1],
      ["q2", 0.5],
      ["q3", 0],
    ]);
    expect(s.meanJaccard.value).toBe(0.5);
    expect(s.meanJaccard.n).toBe(3);
    expect(s.identical.value).toBe(1 / 3);
    expect(s.leftOut).toEqual(["q4", "q5"]);
    expect(s.perQuery[1]).toMatchObject({ onlyA: [], onlyB: ["c"] });
  });
});
