/**
 * Seed 004's fallback parse for models without JSON mode: the whole text, then a fenced
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

export type ParsedJudgment =
  | { ok: true; score: number; reasoning: string; extra: Record<string, unknown> }
  | { ok: false; error: string };

/** A judge's answer to {score, reasoning}. A score outside the scale is an error, never clamped. */
export function parseJudgment(text: string, scale: readonly [number, number]): ParsedJudgment {
  const value = parseJsonLoose(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `No JSON object in the answer: ${JSON.stringify(text.slice(0, 120))}` };
  }
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
