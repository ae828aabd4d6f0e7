import { z } from "zod";

const cache = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * The JSON Schema sent as a structured-output format, derived from the zod schema that also
 * validates the answer: one contract, written once. Built once per schema (hot path).
 */
export function structuredOutputSchema(schema: z.ZodType): Record<string, unknown> {
  let s = cache.get(schema);
  if (!s) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "output" }) as Record<string, unknown>;
    s = rest;
    cache.set(schema, s);
  }
  return s;
}
