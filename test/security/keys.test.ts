import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { defaultSettings } from "@/lib/settings/schema";
import { writeSettings } from "@/lib/settings/store";
import { tempDir } from "@/lib/testing/fixtures";
import { runJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";

const root = path.resolve(__dirname, "../..");
const CANARY = "sk-canary-9f8e7d6c5b4a3210";
let server: ScriptedServer;
beforeAll(async () => {
  // a hostile provider that echoes the key it was sent in its error message
  server = await startScriptedServer((req) => ({
    status: 401,
    message: `Incorrect API key provided: ${String(req.headers.authorization).replace(/^Bearer /, "")}`,
  }));
});
afterAll(() => server.close());

it("an API key never reaches the database, the logs or the output, even when a provider echoes it", async () => {
  const dir = tempDir();
  const dbFile = path.join(dir, "jury.db");
  const log = path.join(dir, "hook.log");
  const db = createDb(dbFile);
  writeSettings(db, {
    ...defaultSettings,
    endpoints: [
      { name: "ep", baseUrl: server.baseURL, apiKeyEnv: "EP_API_KEY", enabled: true, models: ["m"] },
    ],
    judging: { ...defaultSettings.judging, maxRetries: 0 },
    memoryJudge: { ...defaultSettings.memoryJudge, enabled: true, model: "ep:m" },
  });
  db.$client.close();
  const env = { JURY_DB: dbFile, JURY_HOOK_LOG: log, EP_API_KEY: CANARY };
  // async: the scripted server runs in this process and must keep answering
  const run = (args: string[], input?: string) => runJury(args, { env, input: input ?? "" });
  const outputs = [
    await run(["eval", path.join(root, "examples/suites/qa"), "--judges", "ep:m", "--n", "1"]),
    await run([
      "memory",
      "import-study",
      path.join(root, "examples/memory-study"),
      "--collection",
      "default",
    ]),
    await run(["memory", "retrieve"], JSON.stringify({ prompt: "how do we retry stripe webhooks?" })),
    await run([
      "review",
      "--diff",
      path.join(root, "examples/reviews/hardcoded-tests/change.diff"),
      "--criteria",
      "Slugify any input.",
      "--judges",
      "ep:m",
    ]),
  ];
  // the key was really sent, so its absence below means something
  expect(server.requests.some((r) => String(r.headers.authorization).includes(CANARY))).toBe(true);
  for (const o of outputs) {
    expect(o.stdout).not.toContain(CANARY);
    expect(o.stderr).not.toContain(CANARY);
  }
  const files = fs.readdirSync(dir).map((f) => path.join(dir, f));
  expect(files.some((f) => f.endsWith("jury.db"))).toBe(true);
  expect(fs.readFileSync(log, "utf8")).toContain("[redacted]");
  for (const f of files) expect(fs.readFileSync(f).includes(Buffer.from(CANARY)), f).toBe(false);
  // the stored errors say what happened, with the key redacted
  const check = createDb(dbFile);
  const errors = check.$client
    .prepare("select error from samples where error is not null")
    .pluck()
    .all() as string[];
  check.$client.close();
  expect(errors.length).toBeGreaterThan(0);
  expect(errors[0]).toMatch(/HTTP 401: Incorrect API key provided: \[redacted\]/);
});
