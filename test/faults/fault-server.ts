import { hashString } from "@/lib/providers/mock-model";
import type { Reply, ScriptRequest } from "@/lib/testing/scripted-server";

export type FaultCounts = Record<string, number>;

/**
 * Wraps a deterministic answer function with injected faults. The answer depends only on the
 * request's content, so a faulty run and a clean run see the same final answers. About 40 % of
 * calls fail (30 % with a 500), whatever came before: the client's retries must carry every task through.
 */
export function faultyScript(
  answer: (req: ScriptRequest) => Reply,
  opts: { enabled: () => boolean; maxFaultsPerKey?: number },
) {
  const faultsByKey = new Map<string, number>();
  const counts: FaultCounts = {};
  const started = Date.now();
  const script = (req: ScriptRequest): Reply => {
    const key = `${req.model}\u0000${req.text}`;
    const used = faultsByKey.get(key) ?? 0;
    const clean = answer(req);
    if (!opts.enabled() || used >= (opts.maxFaultsPerKey ?? Number.POSITIVE_INFINITY)) return clean;
    // a 429 storm: 100 ms of every second, every call is refused with Retry-After 0.2 s
    const storm = (Date.now() - started) % 1000 < 100;
    const roll = hashString(`${key}#${used}#${req.index}`) % 100;
    let fault: Reply | undefined;
    let kind = "";
    if (storm) [fault, kind] = [{ status: 429, retryAfter: 0.2 }, "429_storm"];
    else if (roll < 15) [fault, kind] = [{ status: 500 }, "500"];
    else if (roll < 30) [fault, kind] = [{ status: 500, retryAfter: 0 }, "500_retry_after"];
    else if (roll < 33) [fault, kind] = [{ status: 429, retryAfter: 0 }, "429"];
    else if (roll < 35) [fault, kind] = [{ hang: true }, "hang"];
    else if (roll < 37)
      [fault, kind] = [{ truncate: JSON.stringify((clean as { json?: unknown }).json ?? "") }, "truncated"];
    else if (roll < 39)
      [fault, kind] = [
        { raw: "<html><body>Bad gateway</body></html>", contentType: "text/html" },
        "wrong_content_type",
      ];
    else if (roll < 40)
      [fault, kind] = [
        { raw: `{"choices": "${"x".repeat(1_500_000)}`, contentType: "application/json" },
        "huge",
      ];
    else if (roll < 42) [fault, kind] = [{ malformed: true }, "malformed_json"];
    else if (roll < 47 && "json" in clean) {
      // not a fault the client must retry: the same answer, wrapped in prose
      counts.json_in_prose = (counts.json_in_prose ?? 0) + 1;
      return {
        text: `Sure, here is my evaluation:\n\`\`\`json\n${JSON.stringify(clean.json)}\n\`\`\`\nLet me know!`,
      };
    }
    if (!fault) return clean;
    faultsByKey.set(key, used + 1);
    counts[kind] = (counts[kind] ?? 0) + 1;
    return fault;
  };
  return { script, counts };
}
