/**
 * How many output tokens a judge may spend on one answer: the `max output tokens` sent with every
 * call, to every provider. Without one, each SDK sends its own default (Anthropic's is the model's
 * maximum, 64,000 for Sonnet 4.5), so a judge that rambles bills for it.
 *
 * A judgment (a score and a few sentences of reasoning) fits well within 1,024 tokens. Reasoning
 * models (OpenAI's gpt-5 and o-series, Gemini 2.5 Pro and Flash) spend their thinking from the same
 * limit before they answer, so they get REASONING_HEADROOM_TOKENS more: with 1,024 alone a gpt-5
 * judge often thinks past the limit and answers nothing (a `truncated` failure).
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 1024;
export const REASONING_HEADROOM_TOKENS = 4096;

/** The judging settings that set the limit: a default for every judge and a value per judge. */
export type OutputLimitSettings = {
  maxOutputTokens?: number;
  maxOutputTokensByJudge?: Record<string, number>;
};

/**
 * Whether a model thinks before it answers, spending output tokens, and refuses `temperature`
 * (OpenAI's reasoning models): gpt-5 and later (not the `-chat` variants), o1/o3/o4; Gemini 2.5 Pro
 * and Flash (Flash-Lite does not think unless asked) and later Gemini models.
 */
export function isReasoningModel(provider: string, model: string): boolean {
  const m = model.toLowerCase();
  if (provider === "openai") {
    if (/^o\d/.test(m)) return true;
    const gpt = /^gpt-(\d+)/.exec(m);
    return gpt !== null && Number(gpt[1]) >= 5 && !/-chat/.test(m);
  }
  if (provider === "google") {
    const g = /^gemini-(\d+)(?:\.(\d+))?-(\w+)/.exec(m);
    if (!g) return false;
    const version = Number(g[1]) + Number(g[2] ?? 0) / 10;
    return version >= 2.5 && !m.includes("flash-lite");
  }
  return false;
}

/** `provider:model` split as judges are written; a bare id has no provider. */
function split(judge: string): { provider: string; model: string } {
  const i = judge.indexOf(":");
  return i < 0 ? { provider: "", model: judge } : { provider: judge.slice(0, i), model: judge.slice(i + 1) };
}

/**
 * The max output tokens for a judge: its own value in Settings when set (used as is), else the
 * default (1,024 unless Settings say otherwise) plus REASONING_HEADROOM_TOKENS for a reasoning model.
 */
export function maxOutputTokensFor(judge: string, s: OutputLimitSettings = {}): number {
  const own = s.maxOutputTokensByJudge?.[judge];
  if (own !== undefined) return own;
  const base = s.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const { provider, model } = split(judge);
  return isReasoningModel(provider, model) ? base + REASONING_HEADROOM_TOKENS : base;
}
