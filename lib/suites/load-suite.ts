import fs from "node:fs";
import path from "node:path";
import { readEnv } from "../env/registry";
import { JuryError } from "../errors";
import { describeDeepPath, MAX_JSON_DEPTH, tooDeepPath } from "../judging/parse-json";
import {
  checkFileSafe,
  MAX_FILE_BYTES_ENV,
  maxFileBytes,
  parseJsonText,
  readTextFileSafe,
} from "../read-text";
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

/**
 * Reads a JSON file of the suite: inside its folder, a regular file within the size limit, nested no
 * deeper than MAX_JSON_DEPTH (a deeper value would fail later, far from here, with "Maximum call
 * stack size exceeded"; the error names the file, the case and the field instead).
 */
function readJson(file: string, dir: string): unknown {
  const value = parseJsonText(
    readTextFileSafe(file, { root: dir, code: "invalid:suite" }),
    file,
    "invalid:suite",
  );
  const deep = tooDeepPath(value);
  if (deep) {
    // the case it is in: the case file's own id, or suite.json's cases[i].id
    const owner =
      deep[0] === "cases" && typeof deep[1] === "number"
        ? (value as { cases: unknown[] }).cases[deep[1]]
        : value;
    const id = (owner as { id?: unknown } | null)?.id;
    throw new JuryError(
      "invalid:suite",
      `${file}: ${typeof id === "string" ? `case "${id}": ` : ""}${describeDeepPath(deep)} is nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  return value;
}

function zodMessage(file: string, issues: { path: PropertyKey[]; message: string }[]): string {
  return `${file}: ${issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ")}`;
}

/** Reads suite.json and cases/*.json from a suite folder. Errors name the file and field. */
export function loadSuite(dir: string): Suite {
  const file = path.join(dir, "suite.json");
  if (!fs.existsSync(file)) throw new JuryError("invalid:suite", `${dir}: no suite.json in this folder`);
  const parsed = suiteSchema.safeParse(readJson(file, dir));
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
      const c = caseSchema.safeParse(readJson(caseFile, dir));
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
  // every file a case names is checked now, before anything is read from it or sent anywhere
  for (const c of cases) {
    const file = outputFile(c);
    if (file !== undefined) checkFileSafe(path.resolve(dir, file), outputFileOptions(dir, c, caseFiles));
  }
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

/** The file a case's output is read from (`"output": {"file": …}`), if it is one. */
export function outputFile(c: TestCase): string | undefined {
  const o = c.output;
  return typeof o === "object" &&
    o !== null &&
    !Array.isArray(o) &&
    "file" in o &&
    typeof o.file === "string" &&
    Object.keys(o).length === 1
    ? o.file
    : undefined;
}

function outputFileOptions(dir: string, c: TestCase, caseFiles?: Map<string, string>) {
  const file = path.resolve(dir, outputFile(c) ?? "");
  const from = caseFiles?.get(c.id);
  return {
    root: dir,
    code: "invalid:suite",
    label: `${from ? `${from}: ` : ""}case "${c.id}": output file ${file}`,
  };
}

/** A case's output file: inside the suite's folder, a regular UTF-8 file within the size limit. */
export function readOutputFile(suiteDir: string, c: TestCase): string {
  return readTextFileSafe(path.resolve(suiteDir, outputFile(c) ?? ""), outputFileOptions(suiteDir, c));
}

/** The output to judge, as text: inline, from a file beside the suite, or fetched from the system under test. */
export async function resolveOutput(suiteDir: string, c: TestCase): Promise<string> {
  const o = c.output;
  if (typeof o === "string") return o;
  if (!Array.isArray(o) && typeof o === "object" && o !== null) {
    const file = outputFile(c);
    if (file !== undefined) return readOutputFile(suiteDir, c);
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
      const body = await readBody(res, maxFileBytes(), `case "${c.id}": ${h.url}`);
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

/** A response's text, refused (and the download stopped) once it passes `max` bytes. */
async function readBody(res: Response, max: number, where: string): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new JuryError(
        "sut_error",
        `${where} answered more than ${max.toLocaleString("en-US")} bytes (${MAX_FILE_BYTES_ENV})`,
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

/** Suite folders under the given roots (default: examples/suites). */
export function discoverSuites(
  roots = ((dirs) => (dirs.length ? dirs : [path.join(process.cwd(), "examples", "suites")]))(
    readEnv("JURY_SUITES_DIR"),
  ),
): { dir: string; name: string }[] {
  const out: { dir: string; name: string }[] = [];
  for (const root of roots) {
    if (!fs.existsSync(root)) continue;
    for (const e of fs.readdirSync(root, { withFileTypes: true })) {
      const dir = path.join(root, e.name);
      if (e.isDirectory() && fs.existsSync(path.join(dir, "suite.json"))) {
        try {
          const file = path.join(dir, "suite.json");
          const json = parseJsonText(readTextFileSafe(file, { root: dir }), file) as { name?: unknown };
          out.push({ dir, name: typeof json?.name === "string" ? json.name : e.name });
        } catch {
          out.push({ dir, name: `${e.name} (suite.json does not parse)` });
        }
      }
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
