import type { DeterministicFn } from "@/lib/criteria/definition";

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function readBound(value: unknown, name: string, fallback: number): number | string {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    return `params.${name} must be a non-negative integer (got ${typeof value === "number" ? value : typeName(value)})`;
  }
  return value;
}

/**
 * 1 when the output's length in characters lies in [min_chars, max_chars] (both inclusive), else 0.
 * Length counts Unicode code points (an emoji is 1), not UTF-16 units, and includes whitespace.
 *
 * params: `min_chars` (non-negative integer, default 0), `max_chars` (non-negative integer,
 * default 2000, must be >= min_chars).
 */
export const checkLengthBounds: DeterministicFn = (ctx, params) => {
  const p: Record<string, unknown> = params && typeof params === "object" ? params : {};
  const min = readBound(p.min_chars, "min_chars", 0);
  if (typeof min === "string") return { score: 0, details: min };
  const max = readBound(p.max_chars, "max_chars", 2000);
  if (typeof max === "string") return { score: 0, details: max };
  if (min > max) {
    return { score: 0, details: `params.min_chars (${min}) is greater than params.max_chars (${max})` };
  }

  const output = ctx?.output;
  if (typeof output !== "string") {
    return { score: 0, details: `output is not text (got ${typeName(output)})` };
  }

  const length = Array.from(output).length;
  if (length < min) return { score: 0, details: `${length} chars, below min_chars=${min}` };
  if (length > max) return { score: 0, details: `${length} chars, above max_chars=${max}` };
  return { score: 1, details: `${length} chars, within [${min}, ${max}]` };
};
