import fs from "node:fs";
import path from "node:path";
import { JuryError } from "../errors";
import { readUtf8File } from "../read-text";
import { type CriterionRef, caseSchema, outputHttpSchema, suiteSchema, type TestCase } from "./schema";

export type Suite = {
  dir: string;
  name: string;
  description?: string;
  criteria: CriterionRef[];
  hint?: string;
  cases: TestCase[];
  /** the file each case came from (suite.json for inline cases), for error messages */
  caseFiles: Map<string, string>;
};

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readUtf8File(file);
  } catch (err) {
    if (err instanceof JuryError) throw err;
    throw new JuryError(
      "invalid:suite",
      `${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new JuryError("invalid:suite", `${file}: invalid JSON: ${(err as Error).message}`);
  }
}

function zodMessage(file: string, issues: { path: PropertyKey[]; message: string }[]): string {
  return `${file}: ${issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ")}`;
}

/** Reads suite.json and cases/*.json from a suite folder. Errors name the file and field. */
export function loadSuite(dir: string): Suite {
  const file = path.join(dir, "suite.json");
  if (!fs.existsSync(file)) throw new JuryError("invalid:suite", `${dir}: no suite.json in this folder`);
  const parsed = suiteSchema.safeParse(readJson(file));
  if (!parsed.success) throw new JuryError("invalid:suite", zodMessage(file, parsed.error.issues));
  const cases = [...(parsed.data.cases ?? [])];
  const files = cases.map(() => file);
  const casesDir = path.join(dir, "cases");
  if (fs.existsSync(casesDir)) {
    for (const name of fs
      .readdirSync(casesDir)
      .filter((n) => n.endsWith(".json"))
      .sort()) {
      const caseFile = path.join(casesDir, name);
      const c = caseSchema.safeParse(readJson(caseFile));
      if (!c.success) throw new JuryError("invalid:suite", zodMessage(caseFile, c.error.issues));
      const http = (c.data.output as { http?: unknown }).http;
      if (http !== undefined) {
        const h = outputHttpSchema.safeParse(http);
        if (!h.success)
          throw new JuryError(
            "invalid:suite",
            zodMessage(
              caseFile,
              h.error.issues.map((i) => ({ ...i, path: ["output", "http", ...i.path] })),
            ),
          );
      }
      cases.push(c.data);
      files.push(caseFile);
    }
  }
  if (cases.length === 0)
    throw new JuryError("invalid:suite", `${dir}: no test cases (add cases/*.json or "cases" in suite.json)`);
  const caseFiles = new Map<string, string>();
  cases.forEach((c, i) => {
    const prev = caseFiles.get(c.id);
    if (prev)
      throw new JuryError(
        "invalid:suite",
        `${dir}: case id "${c.id}" appears twice: in ${path.basename(prev)} and ${path.basename(files[i])}`,
      );
    caseFiles.set(c.id, files[i]);
  });
  return {
    dir,
    name: parsed.data.name,
    description: parsed.data.description,
    criteria: parsed.data.criteria,
    hint: parsed.data.llm_prompt_hint,
    cases,
    caseFiles,
  };
}

/** The criteria a case is judged on: the suite's, with the case's threshold and params overrides. */
export function effectiveCriteria(suite: Suite, c: TestCase): CriterionRef[] {
  return suite.criteria.map((ref) => {
    const o = c.criteria?.find((x) => x.id === ref.id);
    if (!o) return ref;
    return { id: ref.id, threshold: o.threshold ?? ref.threshold, params: { ...ref.params, ...o.params } };
  });
}

/** The output to judge, as text: inline, from a file beside the suite, or fetched from the system under test. */
export async function resolveOutput(suiteDir: string, c: TestCase): Promise<string> {
  const o = c.output;
  if (typeof o === "string") return o;
  if (!Array.isArray(o) && typeof o === "object" && o !== null) {
    if ("file" in o && typeof o.file === "string" && Object.keys(o).length === 1) {
      const file = path.resolve(suiteDir, o.file);
      try {
        return fs.readFileSync(file, "utf8");
      } catch {
        throw new JuryError("invalid:suite", `case "${c.id}": output file ${file} cannot be read`);
      }
    }
    if ("http" in o && typeof o.http === "object" && Object.keys(o).length === 1) {
      const h = o.http as {
        url: string;
        method?: string;
        setup?: unknown;
        headers?: Record<string, string>;
        timeout_ms?: number;
      };
      const res = await fetch(h.url, {
        method: h.method ?? "POST",
        headers: { "content-type": "application/json", ...h.headers },
        body: (h.method ?? "POST") === "GET" ? undefined : JSON.stringify(h.setup ?? {}),
        signal: AbortSignal.timeout(h.timeout_ms ?? 30_000),
      }).catch((err) => {
        throw new JuryError(
          "sut_unreachable",
          `case "${c.id}": ${h.url} did not answer (${(err as Error).message})`,
        );
      });
      const body = await res.text();
      if (!res.ok)
        throw new JuryError(
          "sut_error",
          `case "${c.id}": ${h.url} answered HTTP ${res.status}: ${body.slice(0, 200)}`,
        );
      return body;
    }
  }
  return JSON.stringify(o, null, 2);
}

/** Suite folders under the given roots (default: examples/suites). */
export function discoverSuites(
  roots = (process.env.JURY_SUITES_DIR ?? path.join(process.cwd(), "examples", "suites")).split(
    path.delimiter,
  ),
): { dir: string; name: string }[] {
  const out: { dir: string; name: string }[] = [];
  for (const root of roots) {
    if (!fs.existsSync(root)) continue;
    for (const e of fs.readdirSync(root, { withFileTypes: true })) {
      const dir = path.join(root, e.name);
      if (e.isDirectory() && fs.existsSync(path.join(dir, "suite.json"))) {
        try {
          out.push({
            dir,
            name:
              (JSON.parse(fs.readFileSync(path.join(dir, "suite.json"), "utf8")) as { name?: string }).name ??
              e.name,
          });
        } catch {
          out.push({ dir, name: `${e.name} (suite.json does not parse)` });
        }
      }
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
