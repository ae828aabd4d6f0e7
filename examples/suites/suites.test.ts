import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { criterionSchema, type DeterministicFn } from "@/lib/criteria/definition";
import { type CriterionRef, caseSchema, suiteSchema, type TestCase } from "@/lib/suites/schema";
import { computeAvgCredibility } from "../../criteria/avg_credibility/logic";
import { checkContains } from "../../criteria/contains/logic";
import { checkLengthBounds } from "../../criteria/length_bounds/logic";

const suitesDir = __dirname;
const criteriaDir = path.resolve(__dirname, "../../criteria");

const criterionIds = new Set(
  fs
    .readdirSync(criteriaDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(criteriaDir, e.name, "definition.json")))
    .map((e) => e.name),
);

const suiteNames = fs
  .readdirSync(suitesDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && fs.existsSync(path.join(suitesDir, e.name, "suite.json")))
  .map((e) => e.name)
  .sort();

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, "utf8"));

function loadSuite(name: string) {
  const dir = path.join(suitesDir, name);
  const suite = suiteSchema.parse(readJson(path.join(dir, "suite.json")));
  const casesDir = path.join(dir, "cases");
  const caseFiles = fs.existsSync(casesDir)
    ? fs
        .readdirSync(casesDir)
        .filter((f) => f.endsWith(".json"))
        .sort()
    : [];
  const cases = caseFiles.map((f) => ({ file: f, raw: readJson(path.join(casesDir, f)) }));
  return { dir, suite, cases };
}

/** `{ file }` when the case's output is read from a file, else undefined. */
function outputFile(c: TestCase): string | undefined {
  const o = c.output;
  return typeof o === "object" && !Array.isArray(o) && "file" in o && typeof o.file === "string"
    ? o.file
    : undefined;
}

/** The output text the engine would judge (only inline and file sources occur in these examples). */
function outputText(dir: string, c: TestCase): string {
  const file = outputFile(c);
  if (file !== undefined) return fs.readFileSync(path.join(dir, file), "utf8");
  return typeof c.output === "string" ? c.output : JSON.stringify(c.output);
}

/** Params as the engine is expected to merge them: definition defaults, then suite, then case. */
function paramsFor(id: string, suiteRefs: CriterionRef[], c: TestCase): Record<string, unknown> {
  const def = criterionSchema.parse(readJson(path.join(criteriaDir, id, "definition.json")));
  return {
    ...def.parameters,
    ...suiteRefs.find((r) => r.id === id)?.params,
    ...c.criteria?.find((r) => r.id === id)?.params,
  };
}

function run(fn: DeterministicFn, id: string, dir: string, suiteRefs: CriterionRef[], c: TestCase) {
  const output = outputText(dir, c);
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    parsed = undefined;
  }
  return fn({ output, parsed, input: c.input }, paramsFor(id, suiteRefs, c));
}

describe("example suites", () => {
  it("exist", () => {
    expect(suiteNames).toEqual(expect.arrayContaining(["qa", "recommendations"]));
  });

  describe.each(suiteNames)("%s", (name) => {
    it("suite.json and cases/*.json parse; criteria exist; ids are unique; file outputs exist", () => {
      const { dir, suite, cases } = loadSuite(name);
      expect(cases.length + (suite.cases?.length ?? 0)).toBeGreaterThan(0);
      for (const ref of suite.criteria) expect(criterionIds, `suite criterion ${ref.id}`).toContain(ref.id);

      const ids = new Set<string>();
      for (const { file, raw } of cases) {
        const parsed = caseSchema.safeParse(raw);
        expect(parsed.success, `${file}: ${parsed.success ? "" : JSON.stringify(parsed.error.issues)}`).toBe(
          true,
        );
        if (!parsed.success) continue;
        const c = parsed.data;
        expect(ids.has(c.id), `duplicate case id ${c.id}`).toBe(false);
        ids.add(c.id);
        expect(file).toBe(`${c.id}.json`);
        for (const ref of c.criteria ?? []) {
          expect(criterionIds, `${file}: criterion ${ref.id}`).toContain(ref.id);
          expect(
            suite.criteria.map((r) => r.id),
            `${file}: overrides a criterion the suite does not use`,
          ).toContain(ref.id);
        }
        const outFile = outputFile(c);
        if (outFile !== undefined) {
          const target = path.resolve(dir, outFile);
          expect(target.startsWith(dir + path.sep), `${file}: output file escapes the suite`).toBe(true);
          expect(fs.existsSync(target), `${file}: missing ${outFile}`).toBe(true);
        }
      }
    });
  });
});

describe("recommendations suite", () => {
  const { dir, suite, cases } = loadSuite("recommendations");
  const parsed = cases.map(({ raw }) => caseSchema.parse(raw));

  it("has 4 cases, each with a profile and 5-10 well-formed episodes", () => {
    expect(parsed).toHaveLength(4);
    for (const c of parsed) {
      expect(c.input.prompt).toBeTruthy();
      expect(typeof c.input.profile).toBe("object");
      const episodes = (c.output as { episodes: unknown[] }).episodes;
      expect(episodes.length).toBeGreaterThanOrEqual(5);
      expect(episodes.length).toBeLessThanOrEqual(10);
      for (const e of episodes as {
        id: string;
        title: string;
        topic: string;
        scores: { credibility: number };
      }[]) {
        expect(typeof e.id).toBe("string");
        expect(typeof e.title).toBe("string");
        expect(typeof e.topic).toBe("string");
        expect(e.scores.credibility).toBeGreaterThanOrEqual(0);
        expect(e.scores.credibility).toBeLessThanOrEqual(5);
      }
    }
  });

  it("avg_credibility fails only the deliberately poor case", () => {
    const threshold = suite.criteria.find((r) => r.id === "avg_credibility")?.threshold ?? 3;
    for (const c of parsed) {
      const r = run(computeAvgCredibility, "avg_credibility", dir, suite.criteria, c);
      expect(r.details).toMatch(/^avg_credibility=\d\.\d\d \(n=\d+\)$/);
      expect(r.score >= threshold, `${c.id}: ${r.details}`).toBe(
        c.id !== "poor_single_topic_low_credibility",
      );
    }
  });
});

describe("qa suite", () => {
  const { dir, suite, cases } = loadSuite("qa");
  const parsed = cases.map(({ raw }) => caseSchema.parse(raw));

  it("has 5 cases with prompt, context and reference, and one output read from a file", () => {
    expect(parsed).toHaveLength(5);
    for (const c of parsed) {
      expect(c.input.prompt && c.input.context && c.input.reference).toBeTruthy();
      expect(c.criteria?.find((r) => r.id === "contains")?.params?.pattern).toEqual(expect.any(String));
    }
    expect(parsed.filter((c) => typeof c.output === "object")).toHaveLength(1);
  });

  it("contains and length_bounds give the intended results", () => {
    const results = Object.fromEntries(
      parsed.map((c) => [
        c.id,
        [
          run(checkContains, "contains", dir, suite.criteria, c).score,
          run(checkLengthBounds, "length_bounds", dir, suite.criteria, c).score,
        ],
      ]),
    );
    expect(results).toEqual({
      boiling_point_altitude: [1, 1],
      canberra_capital: [1, 1],
      curie_nobel_wrong: [0, 1],
      rosetta_stone_ungrounded: [1, 1],
      tcp_handshake_verbose: [1, 0],
    });
  });
});
