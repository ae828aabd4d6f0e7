import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { defaultSettings } from "@/lib/settings/schema";
import { writeSettings } from "@/lib/settings/store";
import { tempDir } from "@/lib/testing/fixtures";
import { type JuryResult, runJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "@/lib/testing/scripted-server";

const root = path.resolve(__dirname, "../..");
const CANARY = "sk-canary-9f8e7d6c5b4a3210";
const ECHO_CANARY = "sk-echo-canary-0a1b2c3d4e5f6789";

const bearer = (req: ScriptRequest) => String(req.headers.authorization).replace(/^Bearer /, "");

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
};

/** A valid answer to whatever was asked, every string in it carrying the key the request came with. */
function fill(schema: Schema, key: string, top: number): unknown {
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case "object":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, v]) => [k, fill(v, key, top)]),
      );
    case "number":
    case "integer":
      return schema.maximum ?? top;
    case "array":
      return [];
    case "boolean":
      return true;
    default:
      return `I was sent ${key}, here it is: ${key}`;
  }
}

let failing: ScriptedServer;
let echoing: ScriptedServer;
beforeAll(async () => {
  // a hostile provider that echoes the key it was sent in its error message
  failing = await startScriptedServer((req) => ({
    status: 401,
    message: `Incorrect API key provided: ${bearer(req)}`,
  }));
  // one that answers successfully, with the key in the reasoning (and every other string) of valid JSON,
  // and in the raw text around it
  echoing = await startScriptedServer((req) => {
    const key = bearer(req);
    const schema = req.responseFormat?.json_schema?.schema as Schema | undefined;
    // the memory judge: an answer with no keep list, so its text lands in the error and the hook log
    if (schema?.properties?.keep) return { text: `No list today. Your key is ${key}.` };
    const scale = /scale of\s*(\d+)\s*-\s*(\d+)/i.exec(req.text);
    const top = scale ? Number(scale[2]) : 1;
    const body = schema
      ? fill(schema, key, top)
      : { score: top, reasoning: `I was sent ${key}`, verdict: "pass", summary: key };
    return { text: `Key ${key} received.\n\`\`\`json\n${JSON.stringify(body)}\n\`\`\`` };
  });
});
afterAll(async () => {
  await failing.close();
  await echoing.close();
});

async function setup(endpoint: { name: string; baseUrl: string; apiKeyEnv: string }) {
  const dir = tempDir();
  const dbFile = path.join(dir, "jury.db");
  const log = path.join(dir, "hook.log");
  const db = createDb(dbFile);
  await writeSettings(db, {
    ...defaultSettings,
    endpoints: [{ ...endpoint, enabled: true, models: ["m"] }],
    judging: { ...defaultSettings.judging, maxRetries: 0 },
    memoryJudge: { ...defaultSettings.memoryJudge, enabled: true, model: `${endpoint.name}:m` },
  });
  db.$client.close();
  return { dir, dbFile, log };
}

/** Every file the run left (the database, its -wal and -shm, the hook log): none holds the key. */
function expectNowhere(dir: string, key: string, outputs: JuryResult[]) {
  for (const o of outputs) {
    expect(o.stdout).not.toContain(key);
    expect(o.stderr).not.toContain(key);
  }
  const files = fs.readdirSync(dir).map((f) => path.join(dir, f));
  expect(files.some((f) => f.endsWith("jury.db"))).toBe(true);
  for (const f of files) expect(fs.readFileSync(f).includes(Buffer.from(key)), f).toBe(false);
}

it("an API key never reaches the database, the logs or the output, even when a provider echoes it in an error", async () => {
  // JURY_OLLAMA_API_KEY: a custom endpoint's own variable, covered by the secret list by that name
  const { dir, dbFile, log } = await setup({
    name: "ollama",
    baseUrl: failing.baseURL,
    apiKeyEnv: "JURY_OLLAMA_API_KEY",
  });
  const env = { JURY_DB: dbFile, JURY_HOOK_LOG: log, JURY_OLLAMA_API_KEY: CANARY };
  // async: the scripted server runs in this process and must keep answering
  const run = (args: string[], input?: string) => runJury(args, { env, input: input ?? "" });
  const outputs = [
    await run(["eval", path.join(root, "examples/suites/qa"), "--judges", "ollama:m", "--n", "1"]),
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
      "ollama:m",
    ]),
  ];
  // the key was really sent, so its absence below means something
  expect(failing.requests.some((r) => String(r.headers.authorization).includes(CANARY))).toBe(true);
  expectNowhere(dir, CANARY, outputs);
  expect(fs.readFileSync(log, "utf8")).toContain("[redacted]");
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

it("a key echoed in a judge's successful answer is redacted from the stored raw text, reasoning and output", async () => {
  const { dir, dbFile, log } = await setup({
    name: "echo",
    baseUrl: echoing.baseURL,
    apiKeyEnv: "JURY_ECHO_API_KEY",
  });
  const env = { JURY_DB: dbFile, JURY_HOOK_LOG: log, JURY_ECHO_API_KEY: ECHO_CANARY };
  const run = (args: string[], input?: string) => runJury(args, { env, input: input ?? "" });
  const qa = path.join(root, "examples/suites/qa");
  const review = [
    "review",
    "--diff",
    path.join(root, "examples/reviews/hardcoded-tests/change.diff"),
    "--criteria",
    "Slugify any input.",
    "--judges",
    "echo:m",
  ];
  const outputs = [
    await run(["eval", qa, "--judges", "echo:m", "--n", "1"]),
    // --no-cache: the same prompts again, answered again, printed as JSON
    await run(["eval", qa, "--judges", "echo:m", "--n", "1", "--json", "--no-cache"]),
    await run([
      "memory",
      "import-study",
      path.join(root, "examples/memory-study"),
      "--collection",
      "default",
    ]),
    await run(["memory", "retrieve"], JSON.stringify({ prompt: "how do we retry stripe webhooks?" })),
    await run(["memory", "search", "retry stripe webhooks"]),
    await run(["memory", "search", "retry stripe webhooks", "--json"]),
    await run([...review, "--json"]),
  ];
  // both runs finished (exit 1 only says some case is below its threshold)
  expect(outputs[0].stdout).toMatch(/run_\d+_[0-9a-f]+/);
  const json = JSON.parse(outputs[1].stdout);
  expect(json.status).toBe("done");
  // the key was sent, and came back inside answers that parsed
  expect(echoing.requests.some((r) => bearer(r) === ECHO_CANARY)).toBe(true);
  expectNowhere(dir, ECHO_CANARY, outputs);

  const check = createDb(dbFile);
  const q = (sql: string) => check.$client.prepare(sql).pluck().all() as string[];
  const reasoning = q("select reasoning from samples where judge = 'echo:m' and error is null");
  const raw = q("select raw_text from samples where judge = 'echo:m' and error is null");
  const reviewRows = q("select record from reviews");
  check.$client.close();
  // scored successfully, the key in place of a "[redacted]" marker: redacted, not dropped
  expect(reasoning.length).toBeGreaterThan(0);
  expect(reasoning.every((r) => r === "I was sent [redacted], here it is: [redacted]")).toBe(true);
  expect(raw.every((r) => r.startsWith("Key [redacted] received."))).toBe(true);
  expect(reviewRows.join("\n")).toContain("[redacted]");
  expect(fs.readFileSync(log, "utf8")).toContain("[redacted]");
});
