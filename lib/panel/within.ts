/** The first stage of the run's aggregation, per verdict, over a choice of each judge's samples. */
import { aggregateWithinModel, type SampleScore } from "../judging/aggregate";

/** Each verdict's within-judge mean (aggregateWithinModel) of `pick(samples)`; NaN: no answer. */
export function withinMeans(
  verdicts: readonly { samples: Record<string, SampleScore[]> }[],
  judge: string,
  pick: (samples: SampleScore[]) => SampleScore[],
): Float64Array {
  const out = new Float64Array(verdicts.length);
  verdicts.forEach((v, i) => {
    const s = v.samples[judge];
    const r = s?.length ? aggregateWithinModel(pick(s)) : null;
    out[i] = r && !("skipped" in r) ? r.mean_score : Number.NaN;
  });
  return out;
}
