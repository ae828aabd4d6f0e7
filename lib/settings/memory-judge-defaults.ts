// The memory-judge block's defaults (with what a promoted study configuration carries: its
// collection, whether the judge saw memory bodies, shuffled order, samples) without zod: the hook's
// fast path reads the stored block with these
// defaults and checks, so a prompt with the judge off never loads zod or drizzle. `schema.ts` takes
// its defaults from here; `memory-judge-defaults.test.ts` holds the checks to the zod schema.
import { COLLECTION_NAME } from "../memory/collection";
import type { MemoryJudgeSettings } from "./schema";

export const MEMORY_JUDGE_DEFAULTS = {
  enabled: false,
  model: "anthropic:claude-haiku-4-5-20251001",
  timeout_per_call: 3.0,
  fallback_top_k: 2,
  candidate_pool_size: 15,
  dual_verification: false,
  include_conversation_context: true,
  context_turns: 5,
  include_body: false,
  shuffle: true,
  samples: 1,
  modes: {
    auto: { verification: "strict", max_output: 3 },
    search: { verification: "lenient", max_output: 10 },
  },
} as const;

/** Bounds shared with the zod schema. */
export const MEMORY_JUDGE_LIMITS = {
  timeout_per_call: { max: 60 },
  fallback_top_k: { min: 0, max: 20 },
  candidate_pool_size: { min: 1, max: 100 },
  context_turns: { min: 0, max: 50 },
  max_output: { min: 1, max: 50 },
  samples: { min: 1, max: 10 },
  model: { max: 200 },
} as const;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `over` laid over `base`, objects merged key by key; keys `base` lacks are kept from `over`. */
export function deepMerge<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over))
    out[k] = k in base ? deepMerge((base as Record<string, unknown>)[k], v) : v;
  return out as T;
}

const isInt = (v: unknown, lo: number, hi: number): v is number =>
  Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi;
const L = MEMORY_JUDGE_LIMITS;

/**
 * The stored settings' memory-judge block merged over the defaults, when it turns the judge off and
 * every field of the block is of the schema's type and in its range; otherwise null, and the caller
 * validates the whole row with the zod schema. Unknown keys are dropped, as zod drops them.
 */
export function judgeOffBlock(stored: unknown): MemoryJudgeSettings | null {
  if (stored !== undefined && !isPlainObject(stored)) return null;
  const raw = stored?.memoryJudge;
  if (raw !== undefined && !isPlainObject(raw)) return null;
  const b = deepMerge(MEMORY_JUDGE_DEFAULTS as unknown as Record<string, unknown>, raw);
  if (b.enabled !== false) return null;
  const model = typeof b.model === "string" ? b.model.trim() : "";
  if (!model || model.length > L.model.max) return null;
  const t = b.timeout_per_call;
  if (typeof t !== "number" || !Number.isFinite(t) || t <= 0 || t > L.timeout_per_call.max) return null;
  if (!isInt(b.fallback_top_k, L.fallback_top_k.min, L.fallback_top_k.max)) return null;
  if (!isInt(b.candidate_pool_size, L.candidate_pool_size.min, L.candidate_pool_size.max)) return null;
  if (!isInt(b.context_turns, L.context_turns.min, L.context_turns.max)) return null;
  if (typeof b.dual_verification !== "boolean" || typeof b.include_conversation_context !== "boolean")
    return null;
  if (typeof b.include_body !== "boolean" || typeof b.shuffle !== "boolean") return null;
  if (!isInt(b.samples, L.samples.min, L.samples.max)) return null;
  const collection = promotedCollection(b.collection);
  if (collection === null) return null;
  if (!isPlainObject(b.modes)) return null;
  const modes = {} as MemoryJudgeSettings["modes"];
  for (const name of ["auto", "search"] as const) {
    const m = b.modes[name];
    if (!isPlainObject(m)) return null;
    if (m.verification !== "strict" && m.verification !== "lenient") return null;
    if (!isInt(m.max_output, L.max_output.min, L.max_output.max)) return null;
    const pool = m.candidate_pool_size;
    if (pool !== undefined && !isInt(pool, L.candidate_pool_size.min, L.candidate_pool_size.max)) return null;
    modes[name] = {
      verification: m.verification,
      max_output: m.max_output,
      ...(pool !== undefined ? { candidate_pool_size: pool } : {}),
    };
  }
  return {
    enabled: false,
    model,
    timeout_per_call: t,
    fallback_top_k: b.fallback_top_k,
    candidate_pool_size: b.candidate_pool_size,
    dual_verification: b.dual_verification,
    include_conversation_context: b.include_conversation_context,
    context_turns: b.context_turns,
    include_body: b.include_body,
    shuffle: b.shuffle,
    samples: b.samples,
    ...(collection !== undefined ? { collection } : {}),
    modes,
  };
}

/**
 * The block's collection as the schema reads it: undefined when unset or blank, the trimmed name when
 * it is one, null when it is not (the caller then validates with zod, which reports it).
 */
export function promotedCollection(v: unknown): string | undefined | null {
  if (v === undefined) return undefined;
  if (typeof v !== "string") return null;
  const t = v.trim();
  if (t === "") return undefined;
  return COLLECTION_NAME.test(t) ? t : null;
}
