// `jury eval … --json` with a gpt-5 judge, as a user runs it: the built CLI in its own process, its
// OpenAI requests sent (by a preload, nothing in Jury's configuration) to the OpenAI simulator.
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tempDir, writeJson } from "@/lib/testing/fixtures";
import { childEnv, createProviderSims } from "@/lib/testing/provider-sims";
import { runJury } from "@/lib/testing/run-jury";
import { enableProviders } from "@/lib/testing/settings-db";

const sims = createProviderSims();
let preload = "";
beforeAll(async () => {
  ({ preload } = await sims.listen());
  sims.openai.answer = () => ({ score: 9, reasoning: "Short and to the point." });
});
afterAll(() => sims.close());

it("stdout is one JSON document, no SDK warning is printed, and gpt-5 is sent no temperature", async () => {
  const suiteDir = tempDir("jury-suite-");
  writeJson(path.join(suiteDir, "suite.json"), { name: "gpt-5 suite", criteria: [{ id: "conciseness" }] });
  for (const id of ["a", "b"]) {
    writeJson(path.join(suiteDir, "cases", `${id}.json`), {
      id,
      name: `Case ${id}`,
      input: { prompt: "What is 2+2?" },
      output: "4",
    });
  }
  const db = enableProviders(path.join(tempDir("jury-db-"), "jury.db"), ["openai"], (s) => ({
    ...s,
    providers: { ...s.providers, openai: { enabled: true, models: ["gpt-5"] } },
  }));
  const r = await runJury(["eval", suiteDir, "--judges", "openai:gpt-5", "--n", "2", "--json"], {
    cwd: path.dirname(db),
    env: { JURY_DB: db, ...childEnv(sims, preload) },
  });
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout);
  expect(out).toBeTypeOf("object");
  expect(r.stdout + r.stderr).not.toMatch(/AI SDK|temperature is not supported/);
  sims.assertNoRejections();
  const sent = sims.openai.generations().map((g) => g.body as Record<string, unknown>);
  expect(sent).toHaveLength(4);
  for (const body of sent) {
    expect(body.model).toBe("gpt-5");
    expect(body.temperature).toBeUndefined();
    expect(body.max_output_tokens).toBe(1024 + 4096);
  }
});
