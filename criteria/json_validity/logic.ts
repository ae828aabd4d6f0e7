import type { DeterministicFn } from "@/lib/criteria/definition";

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `array of ${value.length}`;
  return typeof value;
}

/**
 * 1 when the whole output is valid JSON (RFC 8259, via JSON.parse; surrounding whitespace is
 * allowed, markdown code fences and surrounding prose are not), else 0. Takes no parameters.
 */
export const checkJsonValidity: DeterministicFn = (ctx) => {
  const output = ctx?.output;
  if (typeof output !== "string") {
    return { score: 0, details: `output is not text (got ${typeName(output)})` };
  }
  if (output.trim() === "") return { score: 0, details: "output is empty" };
  try {
    const value: unknown = JSON.parse(output);
    return { score: 1, details: `valid JSON (${typeName(value)})` };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { score: 0, details: `invalid JSON: ${reason}` };
  }
};
