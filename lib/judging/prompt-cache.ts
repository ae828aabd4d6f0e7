import { createHash } from "node:crypto";
import { cachingProvider } from "../pricing";
import type { PromptCacheHint } from "./call-model";

/**
 * The provider's prompt cache key for the calls sharing one prompt (a case × criterion of a run,
 * every judge and sample; a review's case): OpenAI routes calls with the same key to the same cache.
 * The prompt's hash, so two runs of the same case share it too; it names nothing of the case.
 */
export function promptCacheKey(req: { system?: string; prompt: string }): string {
  const h = createHash("sha256")
    .update(JSON.stringify([req.system, req.prompt]))
    .digest("hex");
  return `jury-${h.slice(0, 32)}`;
}

/** The prompt-cache hint of a call, when caching is on and the judge's provider caches prompts. */
export function promptCacheHint(
  judge: string,
  req: { system?: string; prompt: string },
  on: boolean,
): PromptCacheHint | undefined {
  const provider = cachingProvider(judge);
  return on && provider ? { provider, key: promptCacheKey(req) } : undefined;
}
