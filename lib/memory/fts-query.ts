/**
 * Builds an FTS5 MATCH expression from free text. Every token is a double-quoted string made
 * only of letters, digits and underscores, so no user text (quotes, parentheses, AND/OR/NOT/NEAR,
 * `*`, `:`, `^`, emoji, any script) can form FTS5 syntax. Tokens are ORed; tokens of
 * `wildcardMinLength` characters or more also match as prefixes ("smart wildcards").
 */

const STOPWORDS = new Set(
  (
    "a an and are as at be but by can could did do does for from had has have how i if in into is it its " +
    "me my no not of on or our please should so that the their them then there these they this to too us " +
    "was we were what when where which while who why will with would you your let lets just also now make " +
    "get got use using want need help like some any about up out all"
  ).split(" "),
);

export const MAX_QUERY_TOKENS = 32;

export function queryTokens(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  // 20,000 characters are plenty to pick 32 terms from; longer prompts are cut before scanning.
  for (const m of text
    .slice(0, 20_000)
    .toLowerCase()
    .matchAll(/[\p{L}\p{N}_]+/gu)) {
    const t = m[0];
    if (t.length < 2 || STOPWORDS.has(t) || seen.has(t)) continue;
    seen.add(t);
    out.push(t.length > 64 ? t.slice(0, 64) : t);
    if (out.length >= MAX_QUERY_TOKENS) break;
  }
  return out;
}

/** Tokens of this many characters or more also match as prefixes (when prefixes are on). */
export const WILDCARD_MIN_LENGTH = 4;

/**
 * `prefix: false` writes every token as an exact term (the stemmed word only): the expression
 * retrieval tries first at scale, where a prefix can stand for thousands of indexed words.
 */
export function buildMatchExpression(
  tokens: string[],
  opts: { columns?: string[]; wildcardMinLength?: number; prefix?: boolean } = {},
): string | null {
  if (tokens.length === 0) return null;
  const min =
    opts.prefix === false ? Number.POSITIVE_INFINITY : (opts.wildcardMinLength ?? WILDCARD_MIN_LENGTH);
  const terms = tokens.map((t) => (t.length >= min ? `"${t}"*` : `"${t}"`)).join(" OR ");
  return opts.columns?.length ? `{${opts.columns.join(" ")}} : (${terms})` : terms;
}
