// Promote reaches the hook: after a study configuration of the collection "team-notes" is used for the
// hook, the built hook and `jury memory search` read that collection, unless a collection named after
// the project exists (then that one), JURY_MEMORY_COLLECTION or --collection says otherwise.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { upsertMemories } from "@/db/queries/memories";
import { runExperiment } from "../memory/experiment";
import { importStudyFolder } from "../memory/import";
import { promoteExperiment } from "../settings/promote";
import { readSettings } from "../settings/store";
import { tempDir, writeJson } from "../testing/fixtures";
import { runJury } from "../testing/run-jury";

const memory = (id: string, title: string) => ({
  id,
  category: "decision",
  title,
  tags: ["timeout"],
  body: `${title}.`,
});

/** A store with two collections about timeouts: the study "team-notes", and "shop-api" (a project's). */
async function store(): Promise<{ file: string; root: string; experiment: string }> {
  const root = tempDir("jury-collection-");
  const study = path.join(root, "study");
  writeJson(
    path.join(study, "memories", "t1.json"),
    memory("team-timeout", "Team rule: HTTP timeout is 10 seconds"),
  );
  writeJson(path.join(study, "queries.json"), [
    { id: "q1", text: "http timeout", relevant: ["team-timeout"] },
  ]);
  const file = path.join(root, "jury.db");
  const db = createDb(file);
  await importStudyFolder(db, study, "team-notes");
  upsertMemories(db, "shop-api", [
    {
      memoryId: "shop-timeout",
      category: "decision",
      title: "Shop API timeout is 5 seconds",
      tags: ["timeout"],
      body: ".",
    },
  ]);
  const experiment = await runExperiment(db, {
    collection: "team-notes",
    config: { kind: "bm25", mode: "auto", topK: 3, poolSize: 15, shuffle: false },
    settings: await readSettings(db),
  });
  db.$client.close();
  return { file, root, experiment };
}

const hookInput = (cwd: string) =>
  JSON.stringify({ hook_event_name: "UserPromptSubmit", prompt: "what is the http timeout", cwd });
const ids = (out: string) => [...out.matchAll(/<memory id="([^"]+)"/g)].map((m) => m[1]);

describe("which collection the hook and jury memory read", () => {
  it("after promote: the promoted collection, a project's own collection first, the variable and the flag over both", async () => {
    const { file, root, experiment } = await store();
    const env = { JURY_DB: file, JURY_HOOK_LOG: `${file}.log`, JURY_MEMORY_COLLECTION: "" };
    const elsewhere = path.join(root, "billing");
    const project = path.join(root, "shop-api");
    fs.mkdirSync(elsewhere);
    fs.mkdirSync(project);

    // nothing promoted: "default", which holds nothing; the search says how it chose it
    expect(ids((await runJury(["memory", "retrieve"], { env, input: hookInput(elsewhere) })).stdout)).toEqual(
      [],
    );
    const none = await runJury(["memory", "search", "--json", "--", "timeout"], { env, cwd: elsewhere });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      'collection "default", chosen as the default: no collection named after the project billing and none promoted: no such collection (there are: shop-api, team-notes)',
    );

    const db = createDb(file);
    await promoteExperiment(db, experiment, { confirmed: ["not_best"] });
    expect((await readSettings(db)).memoryJudge.collection).toBe("team-notes");
    db.$client.close();

    // the hook, with Claude Code's cwd: the promoted collection; in the project "shop-api", its own
    const hook = await runJury(["memory", "retrieve"], { env, input: hookInput(elsewhere) });
    expect([hook.code, hook.stderr]).toEqual([0, ""]);
    expect(ids(hook.stdout)).toEqual(["team-timeout"]);
    expect(ids((await runJury(["memory", "retrieve"], { env, input: hookInput(project) })).stdout)).toEqual([
      "shop-timeout",
    ]);
    // a project folder deeper in a repository: the repository's name
    fs.mkdirSync(path.join(project, ".git"));
    fs.mkdirSync(path.join(project, "src"));
    expect(
      ids(
        (await runJury(["memory", "retrieve"], { env, input: hookInput(path.join(project, "src")) })).stdout,
      ),
    ).toEqual(["shop-timeout"]);

    // the skill's search, run in the project's folder as Claude Code runs it
    const search = await runJury(["memory", "search", "--json", "--", "timeout"], { env, cwd: elsewhere });
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout)).toMatchObject({
      collection: "team-notes",
      collection_from: "the collection promoted in Settings",
      memories: [expect.objectContaining({ memoryId: "team-timeout" })],
    });
    const inProject = JSON.parse(
      (await runJury(["memory", "search", "--json", "--", "timeout"], { env, cwd: project })).stdout,
    );
    expect(inProject).toMatchObject({
      collection: "shop-api",
      collection_from: "named after the project shop-api",
    });

    // JURY_MEMORY_COLLECTION over the project's, --collection over both
    const viaEnv = { ...env, JURY_MEMORY_COLLECTION: "team-notes" };
    expect(
      ids((await runJury(["memory", "retrieve"], { env: viaEnv, input: hookInput(project) })).stdout),
    ).toEqual(["team-timeout"]);
    const flagged = await runJury(["memory", "retrieve", "--collection", "shop-api"], {
      env: viaEnv,
      input: hookInput(elsewhere),
    });
    expect(ids(flagged.stdout)).toEqual(["shop-timeout"]);

    // every retrieval logged under the collection it read
    const d = new Database(file, { readonly: true });
    const rows = d.prepare("select source, collection from retrieval_log order by id").all();
    d.close();
    expect(rows).toEqual([
      { source: "hook", collection: "default" },
      { source: "hook", collection: "team-notes" },
      { source: "hook", collection: "shop-api" },
      { source: "hook", collection: "shop-api" },
      { source: "search", collection: "team-notes" },
      { source: "search", collection: "shop-api" },
      { source: "hook", collection: "team-notes" },
      { source: "hook", collection: "shop-api" },
    ]);
  });

  it("an invalid JURY_MEMORY_COLLECTION: the hook logs it and answers nothing; a command exits 2 naming it", async () => {
    const { file, root } = await store();
    const env = { JURY_DB: file, JURY_HOOK_LOG: `${file}.log`, JURY_MEMORY_COLLECTION: "no such/name" };
    const hook = await runJury(["memory", "retrieve"], { env, input: hookInput(root) });
    expect([hook.code, hook.stdout, hook.stderr]).toEqual([0, "", ""]);
    expect(fs.readFileSync(`${file}.log`, "utf8")).toContain(
      'JURY_MEMORY_COLLECTION="no such/name" must be a collection name',
    );
    const search = await runJury(["memory", "search", "timeout"], { env, cwd: root });
    expect(search.code).toBe(2);
    expect(search.stderr).toContain('JURY_MEMORY_COLLECTION="no such/name" must be a collection name');
  });
});
