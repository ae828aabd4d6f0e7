import fs from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { readEnv } from "../env/registry";
import { describeDeepPath, MAX_JSON_DEPTH, tooDeepPath } from "../judging/parse-json";
import { jsonSyntaxError, readTextFileSafe } from "../read-text";
import { type Criterion, criterionSchema, type DeterministicFn } from "./definition";

export type LoadedCriterion = Criterion & { folder: string; fn?: DeterministicFn; readme?: string };

/** A definition that did not load: which folder, which field, what is wrong. */
export type CriterionLoadError = { folder: string; field: string; message: string };

export type CriteriaRegistry = {
  criteria: Map<string, LoadedCriterion>;
  errors: CriterionLoadError[];
  /** the worker bundle that holds the same logic: deterministic criteria run there (worker-pool.ts) */
  logicWorker?: string;
};

export function defaultCriteriaDir(): string {
  return readEnv("JURY_CRITERIA_DIR") ?? path.join(process.cwd(), "criteria");
}

/**
 * Loads every `criteria/<id>/definition.json`. A broken one becomes an error naming its folder
 * and field; the others still load.
 */
export function loadCriteria(dir: string, logic: Record<string, Record<string, unknown>>): CriteriaRegistry {
  const criteria = new Map<string, LoadedCriterion>();
  const errors: CriterionLoadError[] = [];
  if (!fs.existsSync(dir))
    return { criteria, errors: [{ folder: dir, field: "(folder)", message: "criteria folder not found" }] };
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const folder = path.join(dir, entry.name);
    const file = path.join(folder, "definition.json");
    const fail = (field: string, message: string) => errors.push({ folder: entry.name, field, message });
    if (!fs.existsSync(file)) {
      fail("definition.json", "missing");
      continue;
    }
    let text: string;
    try {
      // inside the criteria folder (symlinks resolved), a regular file within the size limit
      text = readTextFileSafe(file, { root: dir });
    } catch (err) {
      fail("definition.json", (err as Error).message);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // line and column only: never the file's text
      fail("definition.json", `invalid JSON ${jsonSyntaxError(text)}`);
      continue;
    }
    const deep = tooDeepPath(json);
    if (deep) {
      fail(describeDeepPath(deep), `nested deeper than ${MAX_JSON_DEPTH} levels`);
      continue;
    }
    const parsed = criterionSchema.safeParse(json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) fail(issuePath(issue), issue.message);
      continue;
    }
    const def = parsed.data;
    if (def.id !== entry.name) {
      fail("id", `"${def.id}" must equal the folder name "${entry.name}"`);
      continue;
    }
    let fn: DeterministicFn | undefined;
    if (def.type === "deterministic") {
      // own properties only: "constructor", "toString" or "hasOwnProperty" are on every object, and
      // would load here only to fail at run time
      const mod = Object.hasOwn(logic, entry.name) ? logic[entry.name] : undefined;
      const candidate = mod && Object.hasOwn(mod, def.function) ? mod[def.function] : undefined;
      if (typeof candidate !== "function") {
        fail(
          "function",
          `"${def.function}" is not exported by ${entry.name}/logic.ts (or logic.ts is missing)`,
        );
        continue;
      }
      fn = candidate as DeterministicFn;
    }
    const readmePath = path.join(folder, "README.md");
    let readme: string | undefined;
    if (fs.existsSync(readmePath)) {
      try {
        readme = readTextFileSafe(readmePath, { root: dir });
      } catch (err) {
        fail("README.md", (err as Error).message);
        continue;
      }
    }
    criteria.set(def.id, { ...def, folder, fn, readme });
  }
  errors.sort((a, b) => a.folder.localeCompare(b.folder));
  return { criteria, errors };
}

function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.length ? issue.path.map(String).join(".") : "(root)";
}
