/**
 * Command-line options for every `jury` command, declared once: node:util's parseArgs (strict: an
 * unknown option, a missing value or a stray argument is a usage error, exit 2), a parser per value
 * (a bad value is a usage error naming the option and the value), and the help text printed from the
 * same declarations.
 */
import { parseArgs } from "node:util";
import { isJuryError, JuryError } from "../errors";

export type Opt<T = unknown> = {
  type: "string" | "boolean";
  short?: string;
  /** how the value is shown in the help (`<n>`) */
  arg?: string;
  help: string;
  /** the raw value to its typed value; throws JuryError "usage" naming the flag */
  parse?: (raw: string, flag: string) => T;
  /**
   * A value this option refuses, for the table-driven test of every command. Unset: an option whose
   * parser refuses nothing is tested with its value missing.
   */
  bad?: string;
  /** a phantom for the value's type */
  readonly __type?: T;
};

export type Opts = Record<string, Opt>;
export type Values<S extends Opts> = { [K in keyof S]?: S[K] extends Opt<infer T> ? T : never };

export type CommandSpec<S extends Opts = Opts> = {
  /** `memory search` */
  name: string;
  /** what follows the name in the usage line: `"<query>"` */
  args?: string;
  summary: string;
  options: S;
  /** positional arguments taken (default: none); more is a usage error */
  positionals?: { min?: number; max?: number };
  /** more lines after the options */
  notes?: string;
};

const usage = (message: string) => new JuryError("usage", message);

/** `--flag`, `--flag <arg>` for the help. */
const flagText = (name: string, o: Opt) =>
  `${o.short ? `-${o.short}, ` : ""}--${name}${o.type === "string" ? ` ${o.arg ?? "<value>"}` : ""}`;

export function formatHelp(spec: CommandSpec): string {
  const rows: [string, string][] = [
    ...Object.entries(spec.options).map(([n, o]) => [flagText(n, o), o.help] as [string, string]),
    ["-h, --help", "show this help"],
  ];
  const w = Math.max(...rows.map((r) => r[0].length)) + 2;
  return [
    `Usage: jury ${spec.name}${spec.args ? ` ${spec.args}` : ""}${Object.keys(spec.options).length ? " [options]" : ""}`,
    "",
    spec.summary,
    "",
    "Options:",
    ...rows.map(([f, h]) => `  ${f.padEnd(w)}${h}`),
    ...(spec.notes ? ["", spec.notes.trimEnd()] : []),
    "",
  ].join("\n");
}

/** node:util's parse errors, as usage errors that name the option and point at the help. */
function asUsage(err: unknown, spec: CommandSpec): JuryError {
  const code = (err as { code?: string }).code ?? "";
  const msg = (err as Error).message ?? String(err);
  const see = `See jury ${spec.name} --help`;
  const opt = /'(-[^'\s]*)/.exec(msg)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return usage(`Unknown option ${opt ?? msg}. ${see}`);
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    if (/argument missing/.test(msg)) return usage(`${opt} needs a value. ${see}`);
    if (/does not take an argument/.test(msg)) return usage(`${opt} takes no value. ${see}`);
    if (/ambiguous/.test(msg))
      return usage(`${opt} needs a value; one starting with "-" is written ${opt}=-1. ${see}`);
    return usage(`${msg} ${see}`);
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const arg = /'([^']*)'/.exec(msg)?.[1];
    return usage(`Unexpected argument "${arg}". ${see}`);
  }
  return isJuryError(err) ? err : usage(msg);
}

export type Parsed<S extends Opts> = { values: Values<S>; positionals: string[]; help: boolean };

/**
 * Parses `argv` strictly against the spec: each value through its option's parser. `help` is true for
 * `-h`/`--help` (then nothing else is checked: the command prints formatHelp and exits 0).
 */
export function parseCommand<S extends Opts>(spec: CommandSpec<S>, argv: string[]): Parsed<S> {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const [n, o] of Object.entries(spec.options))
    options[n] = o.short ? { type: o.type, short: o.short } : { type: o.type };
  // --help wins over anything else on the line, even an unknown option
  if (argv.includes("--help") || argv.includes("-h"))
    return { values: {} as Values<S>, positionals: [], help: true };
  // a negative number is a value, not an option (`settings set x -1`, `--limit -1`): hidden from
  // parseArgs, which would take it for `-1`, and given back after
  const NEG = "\u0000neg:";
  const args = argv.map((a) => (/^-\d/.test(a) ? `${NEG}${a}` : a));
  const back = (v: string) => (v.startsWith(NEG) ? v.slice(NEG.length) : v);
  let r: ReturnType<typeof parseArgs>;
  try {
    r = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw asUsage(err, spec);
  }
  r.positionals = r.positionals.map(back);
  const values: Record<string, unknown> = {};
  for (const [n, raw] of Object.entries(r.values)) {
    if (n === "help") continue;
    const o = spec.options[n];
    const v = typeof raw === "string" ? back(raw) : raw;
    values[n] = typeof v === "string" && o.parse ? o.parse(v, `--${n}`) : v;
  }
  const { min = 0, max = 0 } = spec.positionals ?? {};
  if (r.positionals.length > max)
    throw usage(
      `Unexpected argument "${r.positionals[max]}"${max === 0 ? ": this command takes options only" : ""}. See jury ${spec.name} --help`,
    );
  if (r.positionals.length < min)
    throw usage(
      `Give ${spec.args ?? "an argument"}: jury ${spec.name} ${spec.args ?? ""}. See jury ${spec.name} --help`,
    );
  return { values: values as Values<S>, positionals: r.positionals, help: Boolean(r.values.help) };
}

// value parsers: each refuses with the flag and the value in the message

export function intValue(min: number, max: number) {
  return (raw: string, flag: string): number => {
    const t = raw.trim();
    const n = /^[+-]?\d+$/.test(t) ? Number(t) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw usage(`${flag} must be a whole number from ${min} to ${max}, got "${raw}"`);
    return n;
  };
}

export function numberValue(min: number, max: number) {
  return (raw: string, flag: string): number => {
    const n = raw.trim() === "" ? Number.NaN : Number(raw);
    if (!Number.isFinite(n) || n < min || n > max)
      throw usage(`${flag} must be a number from ${min} to ${max}, got "${raw}"`);
    return n;
  };
}

export function choiceValue<const C extends string>(choices: readonly C[]) {
  return (raw: string, flag: string): C => {
    if (!(choices as readonly string[]).includes(raw))
      throw usage(`${flag} must be one of ${choices.join(", ")}, got "${raw}"`);
    return raw as C;
  };
}

/** A value that may not be empty (an id, a name). */
export function nonEmpty(raw: string, flag: string): string {
  if (raw.trim() === "") throw usage(`${flag} needs a value, got ""`);
  return raw.trim();
}

/** `provider:model[,provider:model…]`: each with a provider and a model. */
export function judgesValue(raw: string, flag: string): string[] {
  const list = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0)
    throw usage(`${flag} needs at least one judge, like openai:gpt-5-mini, got "${raw}"`);
  for (const j of list) {
    const i = j.indexOf(":");
    if (i <= 0 || i === j.length - 1)
      throw usage(`${flag}: "${j}" must be written provider:model, like openai:gpt-5-mini`);
  }
  return list;
}

// option builders

export const flag = (help: string): Opt<boolean> => ({ type: "boolean", help });
export const text = (arg: string, help: string): Opt<string> => ({
  type: "string",
  arg,
  help,
  parse: nonEmpty,
});
export const int = (arg: string, min: number, max: number, help: string): Opt<number> => ({
  type: "string",
  arg,
  help,
  parse: intValue(min, max),
  bad: String(max + 1),
});
export const num = (arg: string, min: number, max: number, help: string): Opt<number> => ({
  type: "string",
  arg,
  help,
  parse: numberValue(min, max),
  bad: "lots",
});
export const oneOf = <const C extends string>(choices: readonly C[], help: string): Opt<C> => ({
  type: "string",
  arg: choices.join("|"),
  help,
  parse: choiceValue(choices),
  bad: "nope",
});
