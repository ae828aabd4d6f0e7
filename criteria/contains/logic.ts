import type { DeterministicFn } from "@/lib/criteria/definition";

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function preview(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/**
 * 1 when the output contains `pattern`, else 0.
 *
 * params:
 * - `pattern` (string, required, non-empty): a literal substring, or a JavaScript regular
 *   expression source (no slashes, no flags) when `regex` is true
 * - `regex` (boolean, default false)
 * - `case_sensitive` (boolean, default false); with `regex`, false adds the `i` flag
 */
export const checkContains: DeterministicFn = (ctx, params) => {
  const p: Record<string, unknown> = params && typeof params === "object" ? params : {};
  const { pattern } = p;
  const regex = p.regex ?? false;
  const caseSensitive = p.case_sensitive ?? false;

  if (typeof pattern !== "string" || pattern === "") {
    return {
      score: 0,
      details: `params.pattern must be a non-empty string (got ${pattern === "" ? "an empty string" : typeName(pattern)})`,
    };
  }
  if (typeof regex !== "boolean") {
    return { score: 0, details: `params.regex must be a boolean (got ${typeName(regex)})` };
  }
  if (typeof caseSensitive !== "boolean") {
    return { score: 0, details: `params.case_sensitive must be a boolean (got ${typeName(caseSensitive)})` };
  }

  const output = ctx?.output;
  if (typeof output !== "string") {
    return { score: 0, details: `output is not text (got ${typeName(output)})` };
  }

  const how = `${regex ? "regex" : "text"} ${preview(pattern)}${caseSensitive ? " (case-sensitive)" : ""}`;

  if (regex) {
    let re: RegExp;
    try {
      re = new RegExp(pattern, caseSensitive ? "" : "i");
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { score: 0, details: `params.pattern is not a valid regular expression: ${reason}` };
    }
    const match = re.exec(output);
    return match
      ? { score: 1, details: `found ${how} at index ${match.index}: ${preview(match[0])}` }
      : { score: 0, details: `${how} not found in output` };
  }

  const index = caseSensitive
    ? output.indexOf(pattern)
    : output.toLocaleLowerCase("en-US").indexOf(pattern.toLocaleLowerCase("en-US"));
  return index >= 0
    ? { score: 1, details: `found ${how}` }
    : { score: 0, details: `${how} not found in output` };
};
