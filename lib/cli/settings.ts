import type { Db } from "@/db/client";
import { parseBooleanEnv } from "../env/registry";
import { JuryError } from "../errors";
import { describeProvenance, isOverridden, provenanceFor } from "../settings/provenance";
import { fieldErrorsOf, type Settings, settingsSchema } from "../settings/schema";
import { readStoredSettings, writeSettings } from "../settings/store";
import { type CommandSpec, flag, formatHelp, parseCommand } from "./args";
import { cliActor } from "./users";

/**
 * `jury settings list|get|set`: the settings the dashboard's Settings page edits, validated by the
 * same zod schema (lib/settings/schema.ts) and stored by the same function. Keys are never settings:
 * they stay in the environment.
 */
export const SETTINGS_COMMANDS = {
  list: {
    name: "settings list",
    summary: "Prints every setting as `path = value` (JSON with --json).",
    options: { json: flag("print the settings as one JSON object") },
  },
  get: {
    name: "settings get",
    args: "<path>",
    summary:
      "Prints one setting or group (`judging.samples`, `providers.local`), as JSON for a group; where a promoted value came from goes to stderr.",
    options: { json: flag("print the value as JSON") },
    positionals: { min: 1, max: 1 },
  },
  set: {
    name: "settings set",
    args: "<path> <value>",
    summary:
      "Changes one setting, validated as the Settings page validates it; an invalid value names the field and changes nothing.",
    options: {},
    positionals: { min: 2, max: 2 },
    notes: `The value is read as the field's type: a number, true/false (1/0, yes/no), text, or JSON for a
list or group. Examples:
  jury settings set judging.samples 5
  jury settings set providers.local.enabled true
  jury settings set providers.local.models '["llama3.1:8b","qwen3:8b"]'
  jury settings set memoryJudge.model anthropic:claude-haiku-4-5-20251001
  jury settings set prices.openai:gpt-5 '{"inputPerMTok":1.25,"outputPerMTok":10}'
  jury settings set criteriaPanels.correctness '["openai:gpt-5-mini","local:llama3.1:8b"]'
  jury settings set reviewJudges '["anthropic:claude-sonnet-4-5"]'
Changing a promoted value by hand marks its provenance "changed by hand"; provenance itself is
written only by promotion (the memory study's "Use for the hook", the agreement view's buttons).`,
  },
} satisfies Record<string, CommandSpec>;

export const SETTINGS_HELP = `Usage: jury settings <command>

The settings the dashboard's Settings page edits (stored in the database; keys stay in the environment).

Commands:
  list [--json]          every setting as path = value (JSON with --json); promoted values
                         with where they came from
  get <path> [--json]    one setting or group (where a promoted value came from: on stderr)
  set <path> <value>     change one setting (validated; an invalid value changes nothing, exit 2)

jury settings alone prints the settings as JSON (list --json).

jury settings <command> --help for its options.
`;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `path = value` lines for every leaf (an empty list or group is a leaf). */
export function flattenSettings(value: unknown, prefix = ""): [string, unknown][] {
  const children = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : isObject(value)
      ? Object.entries(value)
      : [];
  if (
    children.length === 0 ||
    (Array.isArray(value) && value.every((v) => !isObject(v) && !Array.isArray(v)))
  )
    return [[prefix, value]];
  return children.flatMap(([k, v]) => flattenSettings(v, prefix ? `${prefix}.${k}` : k));
}

/**
 * A dotted path resolved against the settings: segments are keys or list indexes; a key may itself
 * contain dots (a price's `openai:gpt-4.1`), so the longest existing key wins, and at the last level
 * of a table (prices) the rest of the path is a new key. Throws a usage error naming the path.
 */
export function resolvePath(root: unknown, dotted: string): string[] {
  const parts = dotted.split(".");
  if (dotted.trim() === "" || parts.some((p) => p === ""))
    throw new JuryError(
      "usage",
      `"${dotted}" is not a settings path, like judging.samples (see jury settings list)`,
    );
  const keys: string[] = [];
  let node: unknown = root;
  let i = 0;
  while (i < parts.length) {
    let matched = 0;
    if (isObject(node) || Array.isArray(node))
      for (let j = parts.length; j > i; j--)
        if (Object.hasOwn(node, parts.slice(i, j).join("."))) {
          matched = j - i;
          break;
        }
    if (matched === 0) {
      // a new entry of a table keyed by id (prices, criteriaPanels, criteriaSamples): the rest of the path is its key
      if (
        keys.length === 1 &&
        (keys[0] === "prices" || keys[0] === "criteriaPanels" || keys[0] === "criteriaSamples")
      ) {
        keys.push(parts.slice(i).join("."));
        return keys;
      }
      // an optional field not set yet (a mode's own candidate_pool_size): known to the schema
      if (isObject(node) && i === parts.length - 1 && optionalFieldOf(keys, parts[i])) {
        keys.push(parts[i]);
        return keys;
      }
      throw new JuryError(
        "usage",
        `No setting "${dotted}"${keys.length ? ` (${keys.join(".")} has ${describeKeys(node)})` : ""}; see jury settings list`,
      );
    }
    const key = parts.slice(i, i + matched).join(".");
    keys.push(key);
    node = (node as Record<string, unknown>)[key];
    i += matched;
  }
  return keys;
}

function describeKeys(node: unknown): string {
  if (Array.isArray(node)) return node.length ? `items 0 to ${node.length - 1}` : "no items";
  if (isObject(node)) return Object.keys(node).join(", ") || "no keys";
  return "no fields";
}

/** Optional fields the stored settings may leave out, by parent path. */
function optionalFieldOf(parent: string[], key: string): boolean {
  const p = parent.join(".");
  return (
    (/^memoryJudge\.modes\.(auto|search)$/.test(p) && key === "candidate_pool_size") ||
    (/^endpoints\.\d+$/.test(p) && key === "apiKeyEnv")
  );
}

function getAt(root: unknown, keys: string[]): unknown {
  let node = root;
  for (const k of keys)
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[k] : undefined;
  return node;
}

function setAt<T>(root: T, keys: string[], value: unknown): T {
  const copy = structuredClone(root) as Record<string, unknown>;
  let node: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) node = node[k] as Record<string, unknown>;
  node[keys[keys.length - 1]] = value;
  return copy as T;
}

/** The command line's text as the type the field has now (JSON for a list or group). */
export function coerceValue(path: string, raw: string, current: unknown): unknown {
  const bad = (expected: string) =>
    new JuryError("usage", `${path}: expected ${expected}, got ${JSON.stringify(raw)}`);
  if (typeof current === "number" || current === undefined) {
    const t = raw.trim();
    if (t !== "" && Number.isFinite(Number(t))) return Number(t);
    if (typeof current === "number") throw bad("a number");
  }
  if (typeof current === "boolean") {
    try {
      return parseBooleanEnv(raw, path);
    } catch {
      throw bad("true or false (1/0, yes/no)");
    }
  }
  if (typeof current === "string") return raw;
  if (Array.isArray(current) || isObject(current) || current === undefined) {
    try {
      return JSON.parse(raw) as Json;
    } catch {
      if (current === undefined) return raw;
      throw bad(Array.isArray(current) ? 'a JSON list, like ["a","b"]' : "a JSON object");
    }
  }
  return raw;
}

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

function reportProblems(problems: Record<string, string>): void {
  for (const [field, message] of Object.entries(problems))
    process.stderr.write(`warning: the stored settings' ${field}: ${message} (its default is used)\n`);
}

/** Applies `set`: the new settings, validated by the Settings page's schema, or a usage error at the field. */
export function applySetting(
  current: Settings,
  dotted: string,
  raw: string,
): { next: Settings; before: unknown; after: unknown } {
  if (dotted.split(".")[0] === "provenance")
    throw new JuryError(
      "usage",
      `${dotted}: provenance is written only by promotion (the memory study's "Use for the hook", the agreement view's buttons); change the promoted value itself and its provenance says "changed by hand"`,
    );
  const keys = resolvePath(current, dotted);
  const path = keys.join(".");
  const before = getAt(current, keys);
  const value = coerceValue(path, raw, before);
  const parsed = settingsSchema.safeParse(setAt(current, keys, value));
  if (!parsed.success) {
    const errors = fieldErrorsOf(parsed.error);
    const mine = Object.entries(errors).filter(
      ([f]) => f === path || f.startsWith(`${path}.`) || path.startsWith(`${f}.`),
    );
    const list = (mine.length ? mine : Object.entries(errors)).map(([f, m]) => `${f}: ${m}`).join("; ");
    throw new JuryError(
      "invalid:settings",
      `${path} = ${JSON.stringify(raw)} is not valid (${list}); nothing was changed`,
      {
        field: path,
        value: raw,
        errors,
      },
    );
  }
  return { next: parsed.data, before, after: getAt(parsed.data, keys) };
}

export async function settingsCommand(argv: string[]): Promise<number> {
  const [first, ...tail] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(SETTINGS_HELP);
    return 0;
  }
  // `jury settings` alone, or with list's options: list
  // `jury settings` alone prints the JSON, as it always has; with list's options it is list
  const sub = first === undefined || first.startsWith("-") ? "list" : first;
  const rest = first === undefined ? ["--json"] : first.startsWith("-") ? argv : tail;
  if (!Object.hasOwn(SETTINGS_COMMANDS, sub))
    throw new JuryError(
      "usage",
      `Unknown settings command "${sub}": use list, get or set (see jury settings --help)`,
    );
  const spec = SETTINGS_COMMANDS[sub as keyof typeof SETTINGS_COMMANDS] as CommandSpec;
  const { values, positionals, help } = parseCommand(spec, rest);
  if (help) {
    process.stdout.write(formatHelp(spec));
    return 0;
  }
  const { getDb } = await import("@/db/client");
  const db: Db = getDb();
  const stored = await readStoredSettings(db);
  reportProblems(stored.problems);
  const settings = stored.settings;
  if (sub === "list") {
    if (values.json) process.stdout.write(`${JSON.stringify(settings, null, 2)}\n`);
    else {
      const { provenance, ...rest } = settings;
      process.stdout.write(
        [
          ...flattenSettings(rest).map(([k, v]) => `${k} = ${show(v)}`),
          ...Object.entries(provenance).map(
            ([p, e]) => `provenance.${p} = ${describeProvenance(e, isOverridden(settings, p, e))}`,
          ),
        ]
          .join("\n")
          .concat("\n"),
      );
    }
    return 0;
  }
  if (sub === "get") {
    const keys = resolvePath(settings, positionals[0]);
    const v = getAt(settings, keys);
    process.stdout.write(
      `${values.json || isObject(v) || (Array.isArray(v) && v.some(isObject)) ? JSON.stringify(v, null, 2) : v === undefined ? "" : show(v)}\n`,
    );
    // where a promoted value came from, beside the value: stdout stays the value alone for scripts
    if (keys[0] !== "provenance")
      for (const { path, entry } of provenanceFor(settings, keys.join(".")))
        process.stderr.write(`${path}: ${describeProvenance(entry, isOverridden(settings, path, entry))}\n`);
    return 0;
  }
  const { next, before, after } = applySetting(settings, positionals[0], positionals[1]);
  await writeSettings(db, next, cliActor());
  process.stdout.write(
    `${resolvePath(next, positionals[0]).join(".")} = ${show(after)} (was ${before === undefined ? "unset" : show(before)})\n`,
  );
  return 0;
}
