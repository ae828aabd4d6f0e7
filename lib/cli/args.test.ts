import { describe, expect, it } from "vitest";
import { exitCodeFor } from "../exit-codes";
import { type CommandSpec, flag, formatHelp, int, judgesValue, num, oneOf, parseCommand, text } from "./args";

const spec = {
  name: "demo run",
  args: "<target>",
  summary: "A demo.",
  options: {
    n: int("<n>", 1, 10, "samples"),
    temperature: num("<t>", 0, 2, "temperature"),
    mode: oneOf(["auto", "search"] as const, "mode"),
    title: text("<text>", "a title"),
    json: flag("print JSON"),
  },
  positionals: { min: 1, max: 1 },
} satisfies CommandSpec;

const fails = (argv: string[]) => {
  try {
    parseCommand(spec, argv);
  } catch (err) {
    return { code: exitCodeFor(err), message: (err as Error).message };
  }
  throw new Error(`accepted ${argv.join(" ")}`);
};

describe("parseCommand", () => {
  it("parses each value with its option's parser", () => {
    const r = parseCommand(spec, ["x", "--n", "3", "--temperature=0.5", "--mode", "auto", "--json"]);
    expect(r.values).toEqual({ n: 3, temperature: 0.5, mode: "auto", json: true });
    expect(r.positionals).toEqual(["x"]);
  });

  it.each([
    [["x", "--nope"], "Unknown option --nope. See jury demo run --help"],
    [["x", "--n"], "--n needs a value. See jury demo run --help"],
    [["x", "--json=1"], "--json takes no value. See jury demo run --help"],
    [["x", "--n", "0"], '--n must be a whole number from 1 to 10, got "0"'],
    [["x", "--n", "2.5"], '--n must be a whole number from 1 to 10, got "2.5"'],
    [["x", "--n", "-1"], '--n must be a whole number from 1 to 10, got "-1"'],
    [["x", "--temperature", "-1"], '--temperature must be a number from 0 to 2, got "-1"'],
    [["x", "--temperature", ""], '--temperature must be a number from 0 to 2, got ""'],
    [["x", "--mode", "fast"], '--mode must be one of auto, search, got "fast"'],
    [["x", "--title", " "], '--title needs a value, got ""'],
    [["x", "y"], 'Unexpected argument "y". See jury demo run --help'],
    [[], "Give <target>: jury demo run <target>. See jury demo run --help"],
  ])("%j is a usage error (exit 2): %s", (argv, message) => {
    expect(fails(argv)).toEqual({ code: 2, message });
  });

  it("a negative number is a positional, not an option", () => {
    expect(parseCommand(spec, ["-3"]).positionals).toEqual(["-3"]);
  });

  it("--help wins over anything else on the line", () => {
    expect(parseCommand(spec, ["--nope", "--help"]).help).toBe(true);
    expect(formatHelp(spec)).toContain("Usage: jury demo run <target> [options]");
    expect(formatHelp(spec)).toMatch(/--n <n>\s+samples/);
  });

  it("judges must be provider:model", () => {
    expect(judgesValue("openai:gpt-5-mini, local:llama3.1:8b", "--judges")).toEqual([
      "openai:gpt-5-mini",
      "local:llama3.1:8b",
    ]);
    expect(() => judgesValue("local:", "--judges")).toThrow(
      '--judges: "local:" must be written provider:model',
    );
    expect(() => judgesValue(",", "--judges")).toThrow("--judges needs at least one judge");
  });
});
