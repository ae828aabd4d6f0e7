/**
 * The fallback parse for models without JSON mode: the whole text, then a fenced
 * ```json block, then the first {...} object. Returns undefined when none parses.
 */
export function parseJsonLoose(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {}
  const fenced = /```(?:json)?\s*(\{[\s\S]*?\})\s*```/.exec(trimmed);
  if (fenced) {
    try {
      return JSON.parse(fenced[1]);
    } catch {}
  }
  const first = firstBalancedObject(trimmed);
  if (first) {
    try {
      return JSON.parse(first);
    } catch {}
  }
  const greedy = /\{[\s\S]*\}/.exec(trimmed);
  if (greedy) {
    try {
      return JSON.parse(greedy[0]);
    } catch {}
  }
  return undefined;
}

/** The first brace-balanced {...} span, skipping braces inside strings. */
function firstBalancedObject(s: string): string | undefined {
  const start = s.indexOf("{");
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return s.slice(start, i + 1);
  }
  return undefined;
}

/**
 * How deep a JSON value from a file or a judge may nest (each object or array is a level). Parsing a
 * deeper one works, but anything recursive that meets it afterwards (JSON.stringify when it is stored
 * or sent, a schema, a criterion) fails with "Maximum call stack size exceeded", far from the file
 * and field it came from: it is refused where it is read instead.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * The path to the first value nested deeper than `max` levels (`["output", "a", 0, …]`), or undefined
 * when none is. Iterative: a value 100,000 levels deep is walked without recursion.
 */
export function tooDeepPath(value: unknown, max = MAX_JSON_DEPTH): (string | number)[] | undefined {
  type Node = { v: unknown; depth: number; key: string | number; parent?: Node };
  const stack: Node[] = [{ v: value, depth: 0, key: "" }];
  while (stack.length) {
    const node = stack.pop() as Node;
    const v = node.v;
    if (typeof v !== "object" || v === null) continue;
    if (node.depth + 1 > max) {
      const path: (string | number)[] = [];
      for (let n: Node | undefined = node; n?.parent; n = n.parent) path.push(n.key);
      return path.reverse();
    }
    if (Array.isArray(v))
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ v: v[i], depth: node.depth + 1, key: i, parent: node });
    else
      for (const k of Object.keys(v))
        stack.push({ v: (v as Record<string, unknown>)[k], depth: node.depth + 1, key: k, parent: node });
  }
  return undefined;
}

/** `output.a.a.a.a.a…` for an error message: the first levels of a too-deep path, under `prefix`. */
export function describeDeepPath(path: readonly (string | number)[], prefix = ""): string {
  const shown = path.slice(0, 6).map(String);
  const joined = [prefix, ...shown].filter(Boolean).join(".");
  return `${joined || "(root)"}${path.length > shown.length ? "…" : ""}`;
}

export type ParsedJudgment =
  | { ok: true; score: number; reasoning: string; extra: Record<string, unknown> }
  | { ok: false; error: string };

/** A judge's answer to {score, reasoning}. A score outside the scale is an error, never clamped. */
export function parseJudgment(text: string, scale: readonly [number, number]): ParsedJudgment {
  const value = parseJsonLoose(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `No JSON object in the answer: ${JSON.stringify(text.slice(0, 120))}` };
  }
  const deep = tooDeepPath(value);
  if (deep)
    return {
      ok: false,
      error: `the answer is nested deeper than ${MAX_JSON_DEPTH} levels (at ${describeDeepPath(deep)})`,
    };
  const obj = value as Record<string, unknown>;
  const raw = obj.score;
  const score =
    typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : Number.NaN;
  if (!Number.isFinite(score))
    return { ok: false, error: `"score" is missing or not a number: ${JSON.stringify(raw)}` };
  if (score < scale[0] || score > scale[1]) {
    return { ok: false, error: `score ${score} is outside the scale ${scale[0]}–${scale[1]}` };
  }
  const { score: _s, reasoning, ...extra } = obj;
  return { ok: true, score, reasoning: typeof reasoning === "string" ? reasoning : "", extra };
}
