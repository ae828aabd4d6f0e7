import { createHash } from "node:crypto";
import type { JudgeRequest } from "../judging/prompt";

/**
 * The response cache's key for one call: the judge, the exact messages and schema, the temperature
 * and the sample index (N samples of one prompt are N different calls). Runs store and look up
 * answers by it; estimates count the calls a run would take from the cache with it.
 */
export function judgeCacheKey(
  judge: string,
  req: JudgeRequest,
  temperature: number,
  sampleIndex: number,
): string {
  return createHash("sha256")
    .update(JSON.stringify([judge, req.system, req.prompt, temperature, req.schema, sampleIndex]))
    .digest("hex");
}
