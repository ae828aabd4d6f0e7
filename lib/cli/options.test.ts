// Every `jury` command and subcommand, run as a user runs it (bin/jury.cjs → dist/): --help answers 0
// with its usage, an unknown option exits 2 naming it, and a bad value for each of its options exits
// 2 naming that option. The commands declared with lib/cli/args.ts are read from their declarations,
// so a new option is tested without touching this file; the commands that still parse their own
// options (eval, review, memory log) are read from their source's parseArgs block.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/fixtures";
import { runJurySync } from "../testing/run-jury";
import type { CommandSpec, Opt } from "./args";
import { AUDIT } from "./audit";
import { DB_MIGRATE } from "./main";
import { MEMORY_COMMANDS } from "./memory-options";
import { PANEL_OPTIMIZE } from "./panel";
import { RUNS_COMMANDS } from "./runs";
import { SETTINGS_COMMANDS } from "./settings";
import { UI } from "./ui";

const root = path.resolve(__dirname, "../..");
const db = path.join(tempDir(), "options.db");
const jury = (args: string[]) => runJurySync(args, { env: { JURY_DB: db, JURY_HOOK_LOG: `${db}.log` } });

type Row = { words: string[]; positionals: string[]; options: Record<string, Pick<Opt, "type" | "bad">> };

/** A value each option refuses: its declared bad value, else (free text) no value at all. */
function badArgs(name: string, o: Pick<Opt, "type" | "bad">): string[] {
  if (o.type === "boolean") return [`--${name}=yes`];
  return o.bad === undefined ? [`--${name}`] : [`--${name}`, o.bad];
}

const fromSpec = (spec: CommandSpec, positionals: string[] = []): Row => ({
  words: spec.name.split(" "),
  positionals: positionals.length
    ? positionals
    : Array.from({ length: spec.positionals?.min ?? 0 }, () => "x"),
  options: spec.options,
});

/** The options of a command that calls parseArgs itself, read from its source. */
function fromSource(file: string, words: string[], positionals: string[], bad: Record<string, string>): Row {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const block = /parseArgs\(\{[\s\S]*?options: \{([\s\S]*?)\n {4}\},/.exec(text)?.[1] ?? "";
  const options: Row["options"] = {};
  for (const m of block.matchAll(/"?([\w-]+)"?: \{ type: "(string|boolean)"/g))
    if (m[1] !== "help") options[m[1]] = { type: m[2] as "string" | "boolean", bad: bad[m[1]] };
  expect(Object.keys(options).length, `options of ${file}`).toBeGreaterThan(0);
  return { words, positionals, options };
}

const QA = path.join(root, "examples/suites/qa");

const rows: Row[] = [
  fromSpec(DB_MIGRATE),
  fromSpec(AUDIT),
  fromSpec(UI),
  fromSpec(PANEL_OPTIMIZE),
  ...Object.values(SETTINGS_COMMANDS).map((s) =>
    fromSpec(s, s.name === "settings set" ? ["judging.samples", "3"] : []),
  ),
  ...Object.values(RUNS_COMMANDS).map((s) => fromSpec(s)),
  // the hook (memory retrieve) is apart: Claude Code reads its exit 2 as "block this prompt"
  ...Object.values(MEMORY_COMMANDS)
    .filter((s) => s.name !== "memory retrieve")
    .map((s) => fromSpec(s)),
  fromSource("lib/cli/memory-log.ts", ["memory", "log"], [], { limit: "0" }),
  fromSource("lib/cli/eval.ts", ["eval"], [QA], {
    judges: "local:",
    n: "0",
    temperature: "-1",
    concurrency: "0",
  }),
  fromSource("lib/cli/review.ts", ["review"], [], {
    passed: "-1",
    failed: "abc",
    meta: "novalue",
    judges: "local:",
    n: "0",
    weights: "a,b",
    mechanical: "2",
  }),
];

/** `review` needs its criteria and a change before it looks at the rest. */
const diffFile = path.join(tempDir(), "change.diff");
fs.writeFileSync(diffFile, "--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-old\n+new\n");
const required = (r: Row, option: string): string[] =>
  r.words[0] === "review"
    ? [...(option === "criteria" ? [] : ["--criteria", "must handle empty input"]), "--diff", diffFile]
    : [];

describe("every command answers --help with 0, and refuses an unknown option and each bad value with 2 naming it", () => {
  it("jury itself", () => {
    const help = jury(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: jury <command>");
    const bad = jury(["--frobnicate"]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("--frobnicate")]);
    const unknown = jury(["frobnicate"]);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('"frobnicate"')]);
  });

  it.each(["memory", "settings", "runs", "db"])("jury %s --help and an unknown subcommand", (cmd) => {
    const help = jury([cmd, "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: jury /);
    const bad = jury([cmd, "frobnicate"]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("frobnicate")]);
    const opt = jury([cmd, "--frobnicate"]);
    expect([opt.code, opt.stderr]).toEqual([2, expect.stringContaining("--frobnicate")]);
  });

  it("jury memory retrieve --help prints its usage (the hook)", () => {
    const help = jury(["memory", "retrieve", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: jury memory retrieve");
  });

  const cases = rows.flatMap((r) => {
    const name = r.words.join(" ");
    return [
      { title: `${name} --help`, args: [...r.words, "--help"], code: 0, out: `Usage: jury ${name}` },
      {
        title: `${name} --frobnicate`,
        args: [...r.words, ...r.positionals, ...required(r, ""), "--frobnicate"],
        code: 2,
        err: "--frobnicate",
      },
      ...Object.entries(r.options).map(([opt, o]) => ({
        title: `${name} ${badArgs(opt, o).join(" ")}`,
        args: [...r.words, ...r.positionals, ...required(r, opt), ...badArgs(opt, o)],
        code: 2,
        err: `--${opt}`,
      })),
    ];
  });

  it.each(cases)("jury $title", ({ args, code, out, err }) => {
    const r = jury(args);
    if (out !== undefined) {
      expect(r.stdout, r.stderr).toContain(out);
      expect(r.code).toBe(code);
      return;
    }
    expect({ code: r.code, namesTheOption: r.stderr.includes(err as string) }, r.stderr || r.stdout).toEqual({
      code,
      namesTheOption: true,
    });
  });
});

describe("a variable set to a value that does not parse is a configuration error before any command runs", () => {
  const withEnv = (env: Record<string, string>, args: string[]) =>
    runJurySync(args, { env: { JURY_DB: db, JURY_HOOK_LOG: `${db}.log`, ...env } });

  it.each([
    [{ JUDGE_ENABLED: "maybe" }, 'JUDGE_ENABLED="maybe" must be true, false, 1, 0, yes or no'],
    [
      { JUDGE_MAX_PER_HOUR: "lots" },
      'JUDGE_MAX_PER_HOUR="lots" must be a whole number, at least 1 (default 20)',
    ],
    [
      { JURY_MAX_FIELD_CHARS: "12" },
      'JURY_MAX_FIELD_CHARS="12" must be a whole number of characters, at least 1000',
    ],
  ])("%j: exit 2 naming it and its value", (env, message) => {
    const r = withEnv(env, ["review", "--criteria", "x y", "--diff", diffFile]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(withEnv(env, ["runs", "list"]).code).toBe(2);
  });

  it("--help still answers, and the server's own variables are left to the server", () => {
    expect(withEnv({ JUDGE_ENABLED: "maybe" }, ["review", "--help"]).code).toBe(0);
    expect(withEnv({ PORT: "not-a-port" }, ["runs", "list"]).code).toBe(0);
  });
});
