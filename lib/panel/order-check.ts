/**
 * The order check: a configuration with n < N samples per judge is measured on the first n samples;
 * as a check that sample order does not matter, the same configuration is measured on random
 * n-subsets of each judge's samples (seeded, so the figures are reproducible), and the mean, least and
 * greatest accuracy over the draws are reported beside the first-n figure. Draw d of a judge's
 * n-subsets is shared by every configuration holding that judge at that n.
 */
import { DEFAULT_SEED, mulberry32 } from "../stats/bootstrap";
import type { PanelConfig, PanelInput } from "./engine";
import { withinMeans } from "./within";

export type RandomSubsetMeans = {
  draws: number;
  /** draw d's within-judge means of random n-subsets, per verdict (NaN: no answer) */
  means(judge: string, n: number, d: number): Float64Array;
};

export function randomSubsetMeans(input: PanelInput, draws: number, seed?: number): RandomSubsetMeans {
  const cache = new Map<string, Float64Array>();
  return {
    draws,
    means(judge, n, d) {
      const key = `${judge}\u0000${n}\u0000${d}`;
      let m = cache.get(key);
      if (!m) {
        const rng = mulberry32((seed ?? DEFAULT_SEED) + 7919 * d + 104_729 * n + input.judges.indexOf(judge));
        m = withinMeans(input.verdicts, judge, (samples) => {
          const s = [...samples];
          // a partial Fisher–Yates shuffle: the first n are a uniform random n-subset
          for (let i = 0; i < Math.min(n, s.length); i++) {
            const k = i + Math.floor(rng() * (s.length - i));
            [s[i], s[k]] = [s[k], s[i]];
          }
          return s.slice(0, n);
        });
        cache.set(key, m);
      }
      return m;
    },
  };
}

export function orderCheck(
  config: PanelConfig,
  draws: RandomSubsetMeans,
  correctIn: (draw: number) => number,
): PanelConfig["orderCheck"] {
  if (config.labelled === 0 || draws.draws < 1) return undefined;
  const acc: number[] = [];
  for (let d = 0; d < draws.draws; d++) acc.push(correctIn(d) / config.labelled);
  return {
    draws: draws.draws,
    accuracy: acc.reduce((a, b) => a + b, 0) / acc.length,
    min: Math.min(...acc),
    max: Math.max(...acc),
  };
}
