import { z } from "zod";

const cache = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * The JSON Schema sent as a structured-output format, derived from the zod schema that also
 * validates the answer: one contract, written once. Built once per schema (hot path).
 *
 * Made to pass OpenAI's strict mode, which refuses a schema with an optional property: every
 * property is listed as required, and one the zod schema leaves optional is sent as nullable instead
 * (so its zod schema must accept null: write it `.nullish()`). Anthropic and Gemini accept the same.
 */
export function structuredOutputSchema(schema: z.ZodType): Record<string, unknown> {
  let s = cache.get(schema);
  if (!s) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "output" }) as Record<string, unknown>;
    s = allRequired(rest);
    cache.set(schema, s);
  }
  return s;
}

type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every object's properties required, the ones that were optional made nullable; recursively. */
function allRequired(s: Json): Json {
  const out: Json = { ...s };
  if (isJson(s.properties)) {
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const props: Json = {};
    for (const [k, v] of Object.entries(s.properties)) {
      const p = isJson(v) ? allRequired(v) : v;
      props[k] = required.has(k) || !isJson(p) ? p : nullable(p);
    }
    out.properties = props;
    out.required = Object.keys(props);
  }
  if (isJson(s.items)) out.items = allRequired(s.items);
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(s[key])) out[key] = (s[key] as unknown[]).map((x) => (isJson(x) ? allRequired(x) : x));
  }
  return out;
}

function nullable(p: Json): Json {
  if (Array.isArray(p.anyOf)) {
    return (p.anyOf as Json[]).some((x) => x.type === "null")
      ? p
      : { ...p, anyOf: [...p.anyOf, { type: "null" }] };
  }
  if (typeof p.type === "string") return p.type === "null" ? p : { ...p, type: [p.type, "null"] };
  if (Array.isArray(p.type)) return p.type.includes("null") ? p : { ...p, type: [...p.type, "null"] };
  return { anyOf: [p, { type: "null" }] };
}
