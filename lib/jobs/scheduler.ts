import { getOrInsert } from "../map-utils";
import { parseJudgeId } from "../providers/get-model";
import { Limiter } from "../runs/limiter";

/**
 * The one call scheduler: at most `concurrency` model calls at once, and at most
 * `perProviderConcurrency` to any one provider. Runs, reviews and experiments schedule their
 * calls through it; retries, Retry-After and timeouts live in callModel, inside the slot.
 *
 * A run worked by several processes gives each its part of the run's limits, which changes as
 * workers come and go: `setLimits` moves them (a provider not named keeps its limit), and `inFlight`
 * says how many calls run now, in total and per provider.
 */
export type CallScheduler = {
  schedule<T>(judge: string, call: () => Promise<T>): Promise<T>;
  setLimits(limits: { total: number; providers: Record<string, number> }): void;
  inFlight(): { total: number; providers: Record<string, number> };
};

export function createCallScheduler(limits: {
  concurrency: number;
  perProviderConcurrency: number;
}): CallScheduler {
  const global = new Limiter(limits.concurrency);
  const perProvider = new Map<string, Limiter>();
  const limiterOf = (provider: string) =>
    getOrInsert(perProvider, provider, () => new Limiter(limits.perProviderConcurrency));
  return {
    schedule(judge, call) {
      const p = limiterOf(parseJudgeId(judge).provider);
      return global.run(() => p.run(call));
    },
    setLimits({ total, providers }) {
      global.setLimit(total);
      for (const [provider, n] of Object.entries(providers)) limiterOf(provider).setLimit(n);
    },
    inFlight() {
      const providers: Record<string, number> = {};
      for (const [provider, l] of perProvider) if (l.running > 0) providers[provider] = l.running;
      return { total: global.running, providers };
    },
  };
}

/**
 * How many calls a run can really have in flight: its `concurrency`, unless its judges' providers
 * cap it first (each provider takes at most `perProviderConcurrency`). A run of one provider's
 * judges at concurrency 32 with the default 4 per provider has 4 calls in flight, not 32.
 */
export function effectiveConcurrency(
  judges: readonly string[],
  limits: { concurrency: number; perProviderConcurrency: number },
): { effective: number; providers: string[]; cappedByProvider: boolean } {
  const providers = [...new Set(judges.map((j) => parseJudgeId(j).provider))];
  const byProviders = providers.length * limits.perProviderConcurrency;
  const effective = Math.max(1, Math.min(limits.concurrency, byProviders));
  return { effective, providers, cappedByProvider: byProviders < limits.concurrency };
}
