// Promote reaches the hook: a configuration of a study whose collection is not "default" is used for
// the hook from the dashboard; then the command the plugin's hooks.json holds (read from the file, run
// through sh -c as Claude Code runs it) answers Claude Code's UserPromptSubmit input from that
// collection, and the skill's `jury memory search` (as SKILL.md writes it) reads it too.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import Database from "better-sqlite3";
import { freePort, startApp, stopApp } from "./app-server";
import { SCRATCH_DIR, SCRIPTED_PORT } from "./constants";

const ROOT = path.resolve(".");
const PLUGIN = path.join(ROOT, "claude-plugin");
const DIR = path.resolve(SCRATCH_DIR, "promote-hook");
const DB = path.join(DIR, "jury.db");
const COLLECTION = "team-notes";
/** Claude Code's UserPromptSubmit input (its cwd is a project with no collection of its own name). */
const HOOK_INPUT = fs.readFileSync(path.join(ROOT, "lib/memory/fixtures/user-prompt-submit.json"));

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    JURY_DB: DB,
    JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1`,
    NEXT_TELEMETRY_DISABLED: "1",
    ...extra,
  };
  delete e.JURY_MEMORY_COLLECTION;
  return e;
};

function jury(args: string[]): string {
  const r = spawnSync("node", ["bin/jury.cjs", ...args], { encoding: "utf8", timeout: 120_000, env: env() });
  if (r.status !== 0) throw new Error(`jury ${args.join(" ")} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * A folder on PATH holding `jury` (this checkout's bin/jury.cjs), for a hooks.json or SKILL.md that
 * calls an installed `jury`; the plugin's own layout (${CLAUDE_PLUGIN_ROOT}/../bin) needs nothing.
 */
function juryOnPath(): string {
  const bin = path.join(DIR, "bin");
  fs.mkdirSync(bin, { recursive: true });
  const shim = path.join(bin, "jury");
  fs.writeFileSync(shim, `#!/bin/sh\nexec node "${path.join(ROOT, "bin/jury.cjs")}" "$@"\n`);
  fs.chmodSync(shim, 0o755);
  return bin;
}

/** Runs a command line as Claude Code does (sh -c, in the user's project, CLAUDE_PLUGIN_ROOT set). */
function sh(command: string, opts: { cwd: string; input?: Buffer }) {
  return spawnSync("sh", ["-c", command], {
    cwd: opts.cwd,
    input: opts.input,
    encoding: "utf8",
    timeout: 60_000,
    env: env({
      CLAUDE_PLUGIN_ROOT: PLUGIN,
      JURY_HOOK_LOG: path.join(DIR, "hook.log"),
      PATH: `${juryOnPath()}:${process.env.PATH}`,
    }),
  });
}

/** The UserPromptSubmit hook's command, as hooks.json holds it. */
function hookCommand(): string {
  const h = JSON.parse(fs.readFileSync(path.join(PLUGIN, "hooks/hooks.json"), "utf8"));
  return h.hooks.UserPromptSubmit[0].hooks[0].command;
}

/**
 * The skill's search command, as SKILL.md writes it: its `memory search --json` line, with `JURY`
 * replaced by the command SKILL.md says it stands for (when it defines one) and the query filled in.
 */
function skillSearch(query: string): string {
  const md = fs.readFileSync(path.join(PLUGIN, "skills/memory-search/SKILL.md"), "utf8");
  const blocks = [...md.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());
  const line = blocks.find((b) => /memory search --json/.test(b));
  if (!line) throw new Error("SKILL.md has no `memory search --json` command");
  const prefix = /`JURY` stands for/.test(md) ? blocks.find((b) => !/memory /.test(b)) : undefined;
  const quoted = `'${query.replaceAll("'", "'\\''")}'`;
  return line.replace(/^JURY\b/, prefix ?? "JURY").replace("'<query>'", quoted);
}

test("a configuration promoted from the study of a collection not named default reaches the hook and the skill", async ({
  page,
}) => {
  test.setTimeout(180_000);
  fs.rmSync(DIR, { recursive: true, force: true });
  fs.mkdirSync(DIR, { recursive: true });
  jury(["settings", "set", "providers.local.enabled", "true"]);
  jury(["memory", "import-study", "examples/memory-study", "--collection", COLLECTION]);
  jury(["memory", "experiment", "--collection", COLLECTION, "--kind", "bm25", "--top-k", "3"]);
  jury(["memory", "experiment", "--collection", COLLECTION, "--kind", "single", "--model", "local:judge"]);
  // the user's project: a folder with no collection of its own name
  const project = path.join(DIR, "billing-service");
  fs.mkdirSync(project);

  // before: the hook reads "default", which holds nothing; the skill's search fails, saying why
  const before = sh(hookCommand(), { cwd: project, input: HOOK_INPUT });
  expect([before.status, before.stdout, before.stderr]).toEqual([0, "", ""]);
  const failed = sh(skillSearch("timeout"), { cwd: project });
  expect(failed.status).toBe(2);
  expect(failed.stderr).toContain(`no such collection (there are: ${COLLECTION})`);

  const port = await freePort();
  const app = await startApp({ port, db: DB, env: { JURY_LOCAL_BASE_URL: env().JURY_LOCAL_BASE_URL ?? "" } });
  try {
    await page.goto(`http://127.0.0.1:${port}/memory/${COLLECTION}`);
    const note = page.getByTestId("hook-collection");
    await expect(note).toHaveAttribute("data-reads", "default");
    await expect(note).toContainText(`read default (nothing is promoted), not ${COLLECTION}`);
    const row = page.getByTestId("experiment-row").filter({ hasText: "BM25 · auto · top 3" });
    await row.getByTestId("promote-button").click();
    // asked first when the study does not call it best: the figures are there, and confirming uses it
    const confirm = row.getByTestId("promote-confirm");
    if (await confirm.isVisible()) {
      await expect(confirm.getByTestId("promote-figures")).toContainText(
        /precision \d+ % \[\d+–\d+ %\] n=20/,
      );
      await confirm.getByTestId("promote-confirm-yes").click();
    }
    await expect(row.getByTestId("promote-in-use")).toHaveText("used by the hook");
    await expect(note).toHaveAttribute("data-reads", COLLECTION);
    await expect(note).toContainText(`read ${COLLECTION} (promoted in Settings) in every project`);
  } finally {
    await stopApp(app);
  }

  // the hook, as the plugin runs it, in that project: memories from the promoted collection
  const hook = sh(hookCommand(), { cwd: project, input: HOOK_INPUT });
  expect([hook.status, hook.stderr]).toEqual([0, ""]);
  expect(hook.stdout).toMatch(/^<memory-context source="jury"/);
  const injected = [...hook.stdout.matchAll(/<memory id="([^"]+)"/g)].map((m) => m[1]);
  expect(injected.length).toBeGreaterThan(0);
  const d = new Database(DB, { readonly: true });
  try {
    const collections = d
      .prepare(
        `select distinct collection from memories where memory_id in (${injected.map(() => "?").join(",")})`,
      )
      .pluck()
      .all(...injected);
    expect(collections).toEqual([COLLECTION]);
    const logged = d
      .prepare("select source, collection, path from retrieval_log order by id desc limit 1")
      .get();
    expect(logged).toEqual({ source: "hook", collection: COLLECTION, path: "judge_disabled" });
  } finally {
    d.close();
  }

  // the skill's first step, in its own form, from the project's folder
  const search = sh(skillSearch("timeout retries"), { cwd: project });
  expect(search.status, search.stderr).toBe(0);
  const out = JSON.parse(search.stdout);
  expect(out).toMatchObject({
    collection: COLLECTION,
    collection_from: "the collection promoted in Settings",
  });
  expect(out.candidates.length).toBeGreaterThan(0);
  expect(Number.isInteger(out.log_id)).toBe(true);
});
