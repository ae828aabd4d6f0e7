import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, type SqliteDb } from "@/db/client";
import { type CriteriaRegistry, loadCriteria } from "../criteria/registry";
import { distFile } from "../criteria/worker-pool";
import { defaultSettings, type Settings } from "../settings/schema";
import { lengthOk } from "./test-logic";

export function tempDir(prefix = "jury-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function tempDb(): { db: SqliteDb; file: string } {
  const file = path.join(tempDir(), "jury.db");
  return { db: createDb(file), file };
}

export function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

export const llmDefinition = (id: string, scale: [number, number] = [1, 10], threshold = 6) => ({
  id,
  type: "llm",
  name: id,
  version: "1.0",
  description: `test criterion ${id}`,
  scoring: { scale, default_threshold: threshold },
  prompt_template: `Evaluate ${id.toUpperCase()} on a scale of ${scale[0]}-${scale[1]}. Respond with JSON: {"score": n, "reasoning": "..."}`,
  response_schema: { score: "number", reasoning: "string" },
  tags: ["test"],
});

export { lengthOk };

/** dist/test-criteria-worker.mjs: the worker bundle that serves the test logic (test-logic.ts). */
export const TEST_LOGIC_WORKER = distFile("test-criteria-worker.mjs");

/** A criteria folder with two LLM criteria and one deterministic one, loaded with test logic. */
export function testRegistry(extra: Record<string, unknown> = {}): {
  dir: string;
  registry: CriteriaRegistry;
} {
  const dir = tempDir("jury-criteria-");
  writeJson(path.join(dir, "helpful", "definition.json"), llmDefinition("helpful"));
  writeJson(path.join(dir, "brief", "definition.json"), llmDefinition("brief", [1, 5], 3));
  writeJson(path.join(dir, "short", "definition.json"), {
    id: "short",
    type: "deterministic",
    name: "short",
    version: "1.0",
    description: "output under max_chars",
    scoring: { scale: [0, 1], default_threshold: 1 },
    function: "lengthOk",
    parameters: { max_chars: 1000 },
  });
  for (const [id, def] of Object.entries(extra)) writeJson(path.join(dir, id, "definition.json"), def);
  return { dir, registry: { ...loadCriteria(dir, { short: { lengthOk } }), logicWorker: TEST_LOGIC_WORKER } };
}

/**
 * Two LLM criteria (helpful 1–10, brief 1–5) in a folder of their own and a suite of `cases` cases
 * judged on them: no deterministic logic, so another process loads them too (JURY_CRITERIA_DIR).
 */
export function llmSuite(cases: number, name = "LLM suite"): { criteriaDir: string; suiteDir: string } {
  const criteriaDir = tempDir("jury-criteria-");
  writeJson(path.join(criteriaDir, "helpful", "definition.json"), llmDefinition("helpful"));
  writeJson(path.join(criteriaDir, "brief", "definition.json"), llmDefinition("brief", [1, 5], 3));
  const suiteDir = tempDir("jury-suite-");
  writeJson(path.join(suiteDir, "suite.json"), { name, criteria: [{ id: "helpful" }, { id: "brief" }] });
  for (let i = 0; i < cases; i++)
    writeJson(path.join(suiteDir, "cases", `c${i}.json`), {
      id: `c${i}`,
      name: `Case ${i}`,
      input: { prompt: `Question ${i}?` },
      output: `Answer ${i}.`,
    });
  return { criteriaDir, suiteDir };
}

/** A suite folder with `n` cases judged on helpful, brief and short. */
export function testSuite(n = 3): string {
  const dir = tempDir("jury-suite-");
  writeJson(path.join(dir, "suite.json"), {
    name: "Test suite",
    criteria: [{ id: "helpful" }, { id: "brief", threshold: 2 }, { id: "short", params: { max_chars: 60 } }],
    llm_prompt_hint: "Be strict.",
  });
  for (let i = 0; i < n; i++) {
    writeJson(path.join(dir, "cases", `case${i}.json`), {
      id: `case${i}`,
      name: `Case ${i}`,
      input: { prompt: `Question ${i}?`, reference: `Answer ${i}` },
      output: i === 0 ? "A".repeat(100) : `Answer ${i}, probably.`,
    });
  }
  return dir;
}

export function settingsFor(baseURL: string, patch: Partial<Settings["judging"]> = {}): Settings {
  process.env.JURY_LOCAL_BASE_URL = baseURL;
  return {
    ...defaultSettings,
    judging: { ...defaultSettings.judging, timeoutMs: 2000, maxRetries: 3, ...patch },
    prices: { "local:a": { inputPerMTok: 1, outputPerMTok: 2 } },
  };
}
