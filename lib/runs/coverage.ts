import type { Coverage } from "../judging/aggregate";
import { getOrInsert } from "../map-utils";

type SampleLike = { judge: string; score: number | null; error: string | null };

/** A run's coverage: every planned sample, and the judges of its panel. */
export type RunCoverage = Coverage & { samples_pending: number };

/** Failures of one judge with one kind of error, with the first message seen. */
export type FailureGroup = { judge: string; kind: string; count: number; example: string };

const DETERMINISTIC = "deterministic";

/**
 * What a run rests on, from its stored samples: judges answered of the panel's judges (a judge
 * answered when at least one of its samples has a score), samples answered and failed of the
 * planned tasks. Deterministic checks count as samples, not as judges.
 */
export function runCoverage(
  judges: readonly string[],
  totalTasks: number,
  samples: readonly SampleLike[],
): RunCoverage {
  const ok = (s: SampleLike) => s.score !== null && !s.error;
  const answeredJudges = new Set(
    samples.filter((s) => s.judge !== DETERMINISTIC && ok(s)).map((s) => s.judge),
  );
  const answered = samples.filter(ok).length;
  const failed = samples.length - answered;
  return {
    judges_asked: judges.length,
    judges_answered: judges.filter((j) => answeredJudges.has(j)).length,
    samples_asked: totalTasks,
    samples_answered: answered,
    samples_failed: failed,
    samples_pending: Math.max(0, totalTasks - samples.length),
  };
}

/**
 * The kind of a sample's error, from its stored message: the HTTP status, a timeout, an answer
 * that was not valid, a missing key… Good enough to group; the message itself is kept as the example.
 */
export function errorKind(message: string): string {
  const m = message.toLowerCase();
  const http = /\bhttp (\d{3})\b/.exec(m);
  if (http) return `HTTP ${http[1]}`;
  if (/no answer within|timed? ?out|timeout/.test(m)) return "timeout";
  if (/needs [a-z0-9_]+_(api_key|base_url)|missing key|api key/.test(m)) return "missing key";
  if (/no json object|not valid json|invalid json|"score" is missing/.test(m)) return "invalid answer";
  if (/outside the scale/.test(m)) return "score out of scale";
  if (/reply .*(over|exceeds|larger)|too large/.test(m)) return "reply too large";
  if (/econnrefused|enotfound|econnreset|socket|fetch failed|network/.test(m)) return "connection failed";
  if (/deterministic/.test(m)) return "check failed";
  if (/no longer available/.test(m)) return "criterion missing";
  return "other error";
}

/** Failed samples grouped by judge and error kind, largest group first. */
export function groupFailures(samples: readonly SampleLike[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const s of samples) {
    if (s.score !== null && !s.error) continue;
    const message = s.error ?? "no score";
    const kind = errorKind(message);
    const g = getOrInsert(groups, `${s.judge}\u0000${kind}`, () => ({
      judge: s.judge,
      kind,
      count: 0,
      example: message,
    }));
    g.count++;
  }
  return [...groups.values()].sort(
    (a, b) => b.count - a.count || a.judge.localeCompare(b.judge) || a.kind.localeCompare(b.kind),
  );
}
