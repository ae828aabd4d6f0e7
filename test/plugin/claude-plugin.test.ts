// The Claude Code plugin in claude-plugin/: its manifest, hooks.json and skill frontmatter checked
// against Claude Code's documented plugin layout, and the hook command run exactly as hooks.json
// states it (through sh -c, CLAUDE_PLUGIN_ROOT set) on Claude Code's UserPromptSubmit fixture.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { upsertMemories } from "@/db/queries/memories";
import { sqliteDriver } from "@/db/sqlite";
import { DEFAULT_HOOK_BUDGET_MS } from "@/lib/cli/memory-hook";
import { tempDir } from "@/lib/testing/fixtures";

// the driver the CLI uses on this Node (better-sqlite3 13 from Node 22 on)
const Database = sqliteDriver();

const root = path.resolve(__dirname, "../..");
const PLUGIN = path.join(root, "claude-plugin");
const FIXTURE_INPUT = path.join(root, "lib/memory/fixtures/user-prompt-submit.json");

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));
/** Claude Code's rule for plugin (and skill) names: kebab-case, starting with a letter. */
const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
/** The hook events Claude Code documents for hooks.json. */
const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "Notification",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
];
/** plugin.json's documented fields: metadata, and component paths (which must start with ./). */
const MANIFEST_FIELDS = [
  "name",
  "version",
  "description",
  "author",
  "homepage",
  "repository",
  "license",
  "keywords",
  "commands",
  "agents",
  "skills",
  "hooks",
  "mcpServers",
];
/** SKILL.md frontmatter fields Claude Code reads. */
const SKILL_FIELDS = [
  "name",
  "description",
  "argument-hint",
  "allowed-tools",
  "model",
  "disable-model-invocation",
  "user-invocable",
  "version",
  "license",
];

/** A SKILL.md's frontmatter (one `key: value` a line, values optionally quoted) and its body. */
function frontmatter(text: string): { fields: Record<string, string>; body: string } {
  const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!m) throw new Error("no frontmatter between --- lines at the top");
  const fields: Record<string, string> = {};
  for (const line of m[1].split("\n")) {
    const kv = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (!kv) throw new Error(`frontmatter line is not "key: value": ${line}`);
    if (kv[1] in fields) throw new Error(`frontmatter key ${kv[1]} twice`);
    fields[kv[1]] = kv[2].replace(/^"(.*)"$/, "$1").replace(/^'(.*)'$/, "$1");
  }
  return { fields, body: m[2] };
}

type HookEntry = { type: string; command: string; timeout?: number };

describe("claude-plugin/ follows Claude Code's documented plugin layout", () => {
  it("the manifest: .claude-plugin/plugin.json alone in its folder, a kebab-case name, documented fields", () => {
    expect(fs.readdirSync(path.join(PLUGIN, ".claude-plugin"))).toEqual(["plugin.json"]);
    const m = readJson(path.join(PLUGIN, ".claude-plugin/plugin.json"));
    expect(m.name).toMatch(KEBAB);
    expect(m.version).toMatch(SEMVER);
    expect(typeof m.description).toBe("string");
    expect(m.description.length).toBeGreaterThan(20);
    expect(m.author).toMatchObject({ name: expect.any(String) });
    for (const k of Object.keys(m)) expect(MANIFEST_FIELDS).toContain(k);
    // hooks/hooks.json and skills/ are found by the default layout: naming them again would load the hooks twice
    expect(m.hooks).toBeUndefined();
    expect(m.skills).toBeUndefined();
    // components sit at the plugin's root, not inside .claude-plugin/
    expect(fs.existsSync(path.join(PLUGIN, "hooks/hooks.json"))).toBe(true);
    expect(fs.existsSync(path.join(PLUGIN, "skills"))).toBe(true);
  });

  it("hooks/hooks.json: {hooks: {Event: [{hooks: [{type: command, command, timeout}]}]}}, UserPromptSubmit through CLAUDE_PLUGIN_ROOT", () => {
    const h = readJson(path.join(PLUGIN, "hooks/hooks.json"));
    for (const k of Object.keys(h)) expect(["description", "hooks"]).toContain(k);
    for (const [event, groups] of Object.entries(h.hooks as Record<string, unknown[]>)) {
      expect(HOOK_EVENTS).toContain(event);
      expect(Array.isArray(groups)).toBe(true);
      for (const g of groups as { matcher?: string; hooks: HookEntry[] }[]) {
        for (const k of Object.keys(g)) expect(["matcher", "hooks"]).toContain(k);
        for (const e of g.hooks) {
          expect(e.type).toBe("command");
          expect(typeof e.command).toBe("string");
          if (e.timeout !== undefined) expect(Number.isInteger(e.timeout) && e.timeout > 0).toBe(true);
        }
      }
    }
    const [entry] = (h.hooks.UserPromptSubmit as { hooks: HookEntry[] }[]).flatMap((g) => g.hooks);
    // the installed jury on PATH, else the checkout or package the plugin folder sits in
    expect(entry.command).toContain("exec jury memory retrieve");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's variable, as hooks.json writes it
    expect(entry.command).toContain("${CLAUDE_PLUGIN_ROOT}/../bin/jury.cjs");
    // no absolute path into this machine
    expect(entry.command).not.toContain(root);
    // the hook's own budget sits well under the timeout Claude Code gives it (seconds)
    expect(entry.timeout).toBeDefined();
    expect(DEFAULT_HOOK_BUDGET_MS).toBeLessThanOrEqual((entry.timeout as number) * 1000 * 0.6);
  });

  it("the repository is a marketplace: .claude-plugin/marketplace.json lists the plugin by its name, sourced from ./claude-plugin", () => {
    const m = readJson(path.join(root, ".claude-plugin/marketplace.json"));
    for (const k of Object.keys(m)) expect(["name", "owner", "metadata", "plugins"]).toContain(k);
    expect(m.name).toMatch(KEBAB);
    // names Claude Code reserves for official and community marketplaces, or that impersonate them
    expect(m.name).not.toMatch(/anthropic|claude|official|^agent-skills$/);
    expect(m.owner).toMatchObject({ name: expect.any(String) });
    const plugin = readJson(path.join(PLUGIN, ".claude-plugin/plugin.json"));
    expect(m.plugins).toEqual([expect.objectContaining({ name: plugin.name, source: "./claude-plugin" })]);
    // relative sources resolve from the marketplace root (the folder holding .claude-plugin/)
    expect(path.resolve(root, m.plugins[0].source)).toBe(PLUGIN);
  });

  it("skills/<name>/SKILL.md: frontmatter with a kebab-case name equal to its folder and a description", () => {
    const skills = fs.readdirSync(path.join(PLUGIN, "skills"));
    expect(skills).toContain("memory-search");
    for (const dir of skills) {
      const { fields, body } = frontmatter(
        fs.readFileSync(path.join(PLUGIN, "skills", dir, "SKILL.md"), "utf8"),
      );
      for (const k of Object.keys(fields)) expect(SKILL_FIELDS).toContain(k);
      expect(fields.name).toBe(dir);
      expect(fields.name).toMatch(KEBAB);
      expect(fields.name.length).toBeLessThanOrEqual(64);
      expect(fields.description.length).toBeGreaterThan(40);
      expect(fields.description.length).toBeLessThanOrEqual(1024);
      expect(body.trim().length).toBeGreaterThan(0);
    }
  });
});

/** A database with three memories, the first about the fixture prompt's subject (timeouts). */
function memories(db: string) {
  const d = createDb(db);
  upsertMemories(d, "default", [
    {
      memoryId: "timeouts",
      category: "decision",
      title: "HTTP client timeouts are 10 seconds",
      tags: ["http", "timeout"],
      body: "All outbound calls use a 10 s timeout via fetchWithTimeout.",
    },
    {
      memoryId: "retries",
      category: "decision",
      title: "Retry policy: exponential backoff",
      tags: ["retry", "backoff"],
      body: "Retry 3 times with full jitter.",
    },
    {
      memoryId: "checkout",
      category: "bug",
      title: "Checkout tests time out under load",
      tags: ["checkout", "tests"],
      body: "Poll the order status instead of sleeping.",
    },
  ]);
  d.$client.close();
}

const hookCommand = (): string =>
  (readJson(path.join(PLUGIN, "hooks/hooks.json")).hooks.UserPromptSubmit[0].hooks[0] as HookEntry).command;

function retrievals(db: string) {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare("select source, mode, path, kept_ids as kept from retrieval_log").all();
  } finally {
    d.close();
  }
}

/** A folder holding a `jury` command: the installed package's bin, as npm links it onto PATH. */
function juryOnPath(): string {
  const dir = tempDir("jury-path-");
  fs.symlinkSync(path.join(root, "bin", "jury.cjs"), path.join(dir, "jury"));
  return dir;
}

/** PATH with node but no jury: node's own folder and the system's. */
const NO_JURY_PATH = [path.dirname(process.execPath), "/usr/bin", "/bin"].join(":");

/** The plugin copied the way Claude Code installs one: into its cache, away from any Jury folder. */
function cachedPlugin(): string {
  const cache = path.join(
    tempDir("jury-claude-home-"),
    ".claude",
    "plugins",
    "cache",
    "jury",
    "jury",
    "0.1.0",
  );
  fs.cpSync(PLUGIN, cache, { recursive: true });
  return cache;
}

describe("the plugin's hook and skill run as written", () => {
  const env = (extra: Record<string, string>) => {
    const e: NodeJS.ProcessEnv = { ...process.env, ...extra };
    for (const k of ["JURY_DB", "JURY_MEMORY_COLLECTION", "JURY_HOOK_BUDGET_MS"])
      if (!(k in extra)) delete e[k];
    return e;
  };
  const hook = (pluginRoot: string, extra: Record<string, string>) =>
    spawnSync("sh", ["-c", hookCommand()], {
      cwd: tempDir(), // Claude Code runs hooks in the user's project, not in a Jury folder
      input: fs.readFileSync(FIXTURE_INPUT),
      env: env({ CLAUDE_PLUGIN_ROOT: pluginRoot, ...extra }),
      encoding: "utf8",
      timeout: 30_000,
    });

  it("installed into Claude Code's cache, the hook runs the jury on PATH and answers the fixture prompt from JURY_DB", () => {
    const dir = tempDir("jury-plugin-");
    const db = path.join(dir, "jury.db");
    memories(db);
    const r = hook(cachedPlugin(), {
      PATH: `${juryOnPath()}:${NO_JURY_PATH}`,
      JURY_DB: db,
      JURY_HOOK_LOG: path.join(dir, "hook.log"),
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^<memory-context source="jury"/);
    expect(r.stdout).toContain('<memory id="timeouts"');
    expect(retrievals(db)).toEqual([
      expect.objectContaining({ source: "hook", mode: "auto", path: "judge_disabled" }),
    ]);
  });

  it("without JURY_DB, the hook reads the per-user database the CLI writes", () => {
    const data = tempDir("jury-xdg-");
    const db = path.join(data, "jury", "jury.db");
    memories(db);
    const r = hook(cachedPlugin(), { PATH: `${juryOnPath()}:${NO_JURY_PATH}`, XDG_DATA_HOME: data });
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(r.stdout).toContain('<memory id="timeouts"');
    expect(retrievals(db)).toHaveLength(1);
  });

  it("in the cache with no jury anywhere, it exits 0, adds nothing and says in one line how to install Jury", () => {
    const plugin = cachedPlugin();
    const r = hook(plugin, { PATH: NO_JURY_PATH });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/no jury command found.*Install Jury \(npm install -g /);
    expect(r.stderr).not.toMatch(/\n\s+at |Error:/); // never a stack trace
  });

  it("loaded in place from a Jury checkout (--plugin-dir) without jury on PATH, it runs that checkout's bin/jury.cjs", () => {
    // a copy of the layout: <jury>/claude-plugin beside <jury>/bin (this repository's)
    const jury = tempDir("jury-plugin-repo-");
    fs.cpSync(PLUGIN, path.join(jury, "claude-plugin"), { recursive: true });
    fs.symlinkSync(path.join(root, "bin"), path.join(jury, "bin"));
    const dir = tempDir("jury-plugin-db-");
    const db = path.join(dir, "jury.db");
    memories(db);
    const r = hook(path.join(jury, "claude-plugin"), {
      PATH: NO_JURY_PATH,
      JURY_DB: db,
      JURY_HOOK_LOG: path.join(dir, "h.log"),
    });
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(r.stdout).toContain('<memory id="timeouts"');
    expect(retrievals(db)).toHaveLength(1);
  });

  it("the skill's commands (search, then record the decision) run as SKILL.md writes them, and the log shows both", () => {
    const dir = tempDir("jury-plugin-skill-");
    const db = path.join(dir, "jury.db");
    memories(db);
    const skill = fs.readFileSync(path.join(PLUGIN, "skills/memory-search/SKILL.md"), "utf8");
    const blocks = [...skill.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());
    const [jury, search, record] = blocks;
    expect(jury).toBe("jury");
    const sh = (cmd: string) =>
      spawnSync("sh", ["-c", cmd.replaceAll(/^JURY /gm, `${jury} `)], {
        cwd: dir,
        env: env({
          CLAUDE_PLUGIN_ROOT: cachedPlugin(),
          PATH: `${juryOnPath()}:${NO_JURY_PATH}`,
          JURY_DB: db,
        }),
        encoding: "utf8",
        timeout: 30_000,
      });
    // a query with a quote in it, quoted as the skill says
    const s = sh(search.replace("'<query>'", `'timeout'\\''s policy'`));
    expect(s.status).toBe(0);
    const found = JSON.parse(s.stdout);
    expect(found.log_id).toBeGreaterThan(0);
    expect(found.candidates.map((c: { id: string }) => c.id).sort()).toEqual(["retries", "timeouts"]);
    const decision = JSON.stringify({
      log_id: found.log_id,
      kept: ["timeouts"],
      dropped: [{ id: "retries", reason: "retries, not timeouts" }],
    });
    const rec = sh(record.replace(/^\{"log_id".*$/m, decision));
    expect(rec.stderr).toBe("");
    expect(rec.stdout).toMatch(/Recorded the skill's decision as #\d+\./);
    const log = JSON.parse(sh("JURY memory log --json").stdout);
    expect(log[0]).toMatchObject({
      source: "skill",
      path: "agent_judge",
      query: "timeout's policy",
      kept_ids: ["timeouts"],
      dropped: [{ memoryId: "retries", reason: "retries, not timeouts" }],
    });
    expect(log[1]).toMatchObject({ source: "search", query: "timeout's policy" });
  });
});
