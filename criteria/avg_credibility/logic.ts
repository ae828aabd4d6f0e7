import type { DeterministicFn } from "@/lib/criteria/definition";

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

type Lookup = { found: true; value: unknown } | { found: false; missing: string };

/** Follows a dotted path ("scores.credibility", "data.0.items") through own properties only. */
function lookup(root: unknown, path: string[]): Lookup {
  let current = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) {
      return { found: false, missing: path.slice(0, i + 1).join(".") };
    }
    current = (current as Record<string, unknown>)[key];
  }
  return { found: true, value: current };
}

function splitPath(value: unknown, name: string, fallback: string): string[] | string {
  const raw = value === undefined ? fallback : value;
  if (typeof raw !== "string") return `params.${name} must be a string (got ${typeName(raw)})`;
  const parts = raw === "" ? [] : raw.split(".");
  if (parts.some((s) => s === "")) return `params.${name} has an empty segment: ${JSON.stringify(raw)}`;
  return parts;
}

/**
 * The average credibility: the mean of a numeric field over the first `top_n` items of a
 * list in the output parsed as JSON, rounded to 2 decimals.
 *
 * params:
 * - `list_field` (default "episodes"): dotted path to the list; "" means the output itself is the list
 * - `value_path` (default "scores.credibility"): dotted path to the number inside each item
 * - `top_n` (positive integer, default 10)
 *
 * Score 0 with details when the list is empty ("No episodes returned"), when the output is not
 * JSON, when the list is missing or not a list, or when any of the top N items lacks a finite
 * number at `value_path`. Values are averaged as they are (not clamped to the [0, 5] scale).
 */
export const computeAvgCredibility: DeterministicFn = (ctx, params) => {
  const p: Record<string, unknown> = params && typeof params === "object" ? params : {};

  const listPath = splitPath(p.list_field, "list_field", "episodes");
  if (typeof listPath === "string") return { score: 0, details: listPath };
  const valuePath = splitPath(p.value_path, "value_path", "scores.credibility");
  if (typeof valuePath === "string") return { score: 0, details: valuePath };
  if (valuePath.length === 0) return { score: 0, details: "params.value_path must not be empty" };
  const topN = p.top_n ?? 10;
  if (typeof topN !== "number" || !Number.isInteger(topN) || topN < 1) {
    return {
      score: 0,
      details: `params.top_n must be a positive integer (got ${typeof topN === "number" ? topN : typeName(topN)})`,
    };
  }

  let parsed = ctx?.parsed;
  if (parsed === undefined && typeof ctx?.output === "string") {
    try {
      parsed = JSON.parse(ctx.output);
    } catch {
      // handled below
    }
  }
  if (parsed === undefined) return { score: 0, details: "output is not valid JSON" };

  const listName = listPath.length === 0 ? "output" : listPath.join(".");
  const list = lookup(parsed, listPath);
  if (!list.found) {
    return { score: 0, details: `output has no "${list.missing}" field (expected a list at "${listName}")` };
  }
  if (!Array.isArray(list.value)) {
    return { score: 0, details: `"${listName}" is not a list (got ${typeName(list.value)})` };
  }
  const items = list.value.slice(0, topN);
  if (items.length === 0) return { score: 0, details: `No ${listName} returned` };

  const values: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const where = `${listName}[${i}].${valuePath.join(".")}`;
    const found = lookup(items[i], valuePath);
    if (!found.found) {
      return { score: 0, details: `${where} is missing (expected a number)` };
    }
    if (typeof found.value !== "number" || !Number.isFinite(found.value)) {
      const got = typeof found.value === "number" ? String(found.value) : typeName(found.value);
      return { score: 0, details: `${where} is not a finite number (got ${got})` };
    }
    values.push(found.value);
  }

  const avg = values.reduce((a, b) => a + b, 0) / values.length;
  const rounded = Math.round((avg + Number.EPSILON) * 100) / 100;
  const label = `avg_${valuePath[valuePath.length - 1]}`;
  return { score: rounded, details: `${label}=${rounded.toFixed(2)} (n=${values.length})` };
};
