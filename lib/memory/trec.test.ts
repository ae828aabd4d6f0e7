import { describe, expect, it } from "vitest";
import type { Qrels, Run } from "./ir-metrics";
import { parseBeirQrelsTsv, parseQrels, parseRun, writeQrels, writeRun } from "./trec";

const qrels: Qrels = new Map([
  [
    "q1",
    new Map([
      ["stripe-webhook-idempotency", 2],
      ["db-pool-size", 0],
    ]),
  ],
  ["q2", new Map([["checkout-retry-policy", 1]])],
]);

describe("writeQrels / parseQrels", () => {
  it("writes 'qid 0 docid rel' lines", () => {
    expect(writeQrels(qrels)).toBe(
      "q1 0 stripe-webhook-idempotency 2\nq1 0 db-pool-size 0\nq2 0 checkout-retry-policy 1\n",
    );
  });

  it("round-trips", () => {
    expect(parseQrels(writeQrels(qrels))).toEqual(qrels);
  });

  it("drops queries without judgments and writes nothing for empty qrels", () => {
    expect(writeQrels(new Map([["q", new Map()]]))).toBe("");
  });

  it("accepts any whitespace, CRLF, blank lines and negative grades", () => {
    const parsed = parseQrels("\r\n101\t0  doc-a   1\r\n\n101 Q0 doc-b -1\r\n");
    expect(parsed.get("101")).toEqual(
      new Map([
        ["doc-a", 1],
        ["doc-b", -1],
      ]),
    );
  });

  it("reports malformed lines with their line number", () => {
    expect(() => parseQrels("q1 0 a 1\n\nq1 0 b\n")).toThrow(/^line 3: expected 4 fields/);
    expect(() => parseQrels("q1 0 a 1.5")).toThrow(/^line 1: relevance must be an integer/);
    expect(() => parseQrels("q1 0 a 1\nq1 0 a 0")).toThrow(/^line 2: duplicate judgment/);
  });

  it("rejects ids with whitespace and fractional grades when writing", () => {
    expect(() => writeQrels(new Map([["q 1", new Map([["a", 1]])]]))).toThrow(/whitespace/);
    expect(() => writeQrels(new Map([["q1", new Map([["a", 0.5]])]]))).toThrow(/integer/);
  });
});

describe("writeRun / parseRun", () => {
  const run: Run = new Map([
    [
      "q1",
      [
        { docId: "a", score: 1.5 },
        { docId: "c", score: 2 },
        { docId: "b", score: 1.5 },
      ],
    ],
    ["q2", [{ docId: "x", score: -0.25 }]],
  ]);

  it("writes trec_eval order with ranks from 1", () => {
    expect(writeRun(run, "bm25")).toBe(
      "q1 Q0 c 1 2 bm25\nq1 Q0 b 2 1.5 bm25\nq1 Q0 a 3 1.5 bm25\nq2 Q0 x 1 -0.25 bm25\n",
    );
  });

  it("round-trips into trec_eval order", () => {
    const parsed = parseRun(writeRun(run, "bm25"));
    expect(parsed.get("q1")?.map((d) => d.docId)).toEqual(["c", "b", "a"]);
    expect(parsed.get("q2")).toEqual([{ docId: "x", score: -0.25 }]);
  });

  it("ignores the rank column and sorts by score", () => {
    const parsed = parseRun("q Q0 low 1 0.1 t\nq Q0 high 2 3e-1 t\n");
    expect(parsed.get("q")).toEqual([
      { docId: "high", score: 0.3 },
      { docId: "low", score: 0.1 },
    ]);
  });

  it("reports malformed lines with their line number", () => {
    expect(() => parseRun("q Q0 a 1 0.5 t\nq Q0 b 2 0.4\n")).toThrow(/^line 2: expected 6 fields/);
    expect(() => parseRun("q Q0 a one 0.5 t")).toThrow(/^line 1: rank must be an integer/);
    expect(() => parseRun("\n\nq Q0 a 1 high t")).toThrow(/^line 3: score must be a number/);
    expect(() => parseRun("q Q0 a 1 1 t\nq Q0 a 2 0 t")).toThrow(/^line 2: duplicate doc "a"/);
  });

  it("rejects a tag with whitespace and a non-finite score", () => {
    expect(() => writeRun(run, "my run")).toThrow(/whitespace/);
    expect(() => writeRun(new Map([["q", [{ docId: "a", score: Number.POSITIVE_INFINITY }]]]), "t")).toThrow(
      /finite/,
    );
  });
});

describe("parseBeirQrelsTsv", () => {
  it("parses the header and tab-separated rows", () => {
    const parsed = parseBeirQrelsTsv(
      "query-id\tcorpus-id\tscore\r\n1\t31715818\t1\n1\t14717500\t0\n3\t23389795\t2\n",
    );
    expect(parsed).toEqual(
      new Map([
        [
          "1",
          new Map([
            ["31715818", 1],
            ["14717500", 0],
          ]),
        ],
        ["3", new Map([["23389795", 2]])],
      ]),
    );
  });

  it("requires the header and reports malformed rows with their line number", () => {
    expect(() => parseBeirQrelsTsv("1\t2\t1\n")).toThrow(/^line 1: expected the header/);
    expect(() => parseBeirQrelsTsv("query-id\tcorpus-id\tscore\n1\t2\n")).toThrow(/^line 2: expected 3/);
    expect(() => parseBeirQrelsTsv("query-id\tcorpus-id\tscore\n1\t2\tyes\n")).toThrow(/^line 2: relevance/);
    expect(() => parseBeirQrelsTsv("query-id\tcorpus-id\tscore\n1\t2\t1\n1\t2\t0\n")).toThrow(
      /^line 3: duplicate/,
    );
  });
});
