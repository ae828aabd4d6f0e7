// One schema per contract: the structured-output schema each judge call sends is the JSON Schema
// of the zod schema that validates the answer (no hand-written twin that can drift).
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { keepAnswerSchema } from "@/lib/memory/judge";
import { dimensionAnswerSchema, gateAnswerSchema, judgmentSchema } from "@/lib/review/judgment";
import { structuredOutputSchema } from "@/lib/schemas/structured-output";
import { tempDir } from "@/lib/testing/fixtures";
import { runJury } from "@/lib/testing/run-jury";
import { type ScriptedServer, type ScriptRequest, startScriptedServer } from "@/lib/testing/scripted-server";
import { enableProviders } from "@/lib/testing/settings-db";

const root = path.resolve(__dirname, "../..");
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((req) => {
    if (req.text.includes("When in doubt, pass")) return { json: { verdict: "pass", reasoning: "ok" } };
    if (req.text.includes('"keep"') || req.text.includes("keep")) return { json: { keep: [0] } };
    return { json: { score: 0.8, reasoning: "fine" } };
  });
});
afterAll(() => server.close());

const sentSchema = (r: ScriptRequest) => r.responseFormat?.json_schema?.schema;

it("the review gate, the per-dimension judge, the combined judgment and the memory judge send their zod schemas", async () => {
  const dir = tempDir();
  const env = { JURY_DB: enableProviders(path.join(dir, "jury.db")), JURY_LOCAL_BASE_URL: server.baseURL };
  const diff = path.join(root, "examples/reviews/hardcoded-tests/change.diff");
  const review = ["review", "--diff", diff, "--criteria", "Slugify any input.", "--judges", "local:m"];
  await runJury([...review, "--per-dimension"], { env });
  await runJury(review, { env });
  await runJury(["memory", "import-study", path.join(root, "examples/memory-study"), "--collection", "s"], {
    env,
  });
  await runJury(
    ["memory", "experiment", "--collection", "s", "--kind", "single", "--model", "local:m", "--json"],
    { env },
  );

  const schemas = server.requests.map(sentSchema).filter(Boolean);
  const expected = {
    gate: structuredOutputSchema(gateAnswerSchema),
    dimension: structuredOutputSchema(dimensionAnswerSchema),
    judgment: structuredOutputSchema(judgmentSchema),
    keep: structuredOutputSchema(keepAnswerSchema),
  };
  for (const [name, schema] of Object.entries(expected)) {
    expect(schemas, `${name} schema was sent`).toContainEqual(schema);
  }
  // and nothing else: every schema sent is one of the zod-derived ones
  const known = Object.values(expected).map((s) => JSON.stringify(s));
  for (const s of schemas) expect(known).toContain(JSON.stringify(s));
  // the judgment's JSON Schema carries the zod constraints (the hand-written twin had lost some)
  expect(JSON.stringify(expected.judgment)).toContain('"maxItems":50');
});
