import type { Coverage } from "../judging/aggregate";
import { getOrInsert } from "../map-utils";

type SampleLike = { judge: string; score: number | null; error: string | null };

/** A run's coverage: every planned sample, and the judges of its panel. */
export type RunCoverage = Coverage & { samples_pending: number };

/** Failures of one judge with one kind of error, with the first message seen. */
export type FailureGroup = { judge: string; kind: string; count: number; example: string };

const DETERMINISTIC = "deterministic";

/** One judge's current samples in a run: answered (a score, no error) and failed. */
export type JudgeSampleCounts = { judge: string; answered: number; failed: number };

const ok = (s: SampleLike) => s.score !== null && !s.error;

/** Per judge answered and failed counts from sample rows: what getJudgeSampleCounts gives from SQL. */
export function judgeSampleCounts(samples: readonly SampleLike[]): JudgeSampleCounts[] {
  const by = new Map<string, JudgeSampleCounts>();
  for (const s of samples) {
    const c = getOrInsert(by, s.judge, () => ({ judge: s.judge, answered: 0, failed: 0 }));
    if (ok(s)) c.answered++;
    else c.failed++;
  }
  return [...by.values()];
}

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
  return runCoverageFrom(judges, totalTasks, judgeSampleCounts(samples));
}

/** runCoverage from per judge counts (a run's samples counted in SQL, not loaded). */
export function runCoverageFrom(
  judges: readonly string[],
  totalTasks: number,
  counts: readonly JudgeSampleCounts[],
): RunCoverage {
  const answeredJudges = new Set(
    counts.filter((c) => c.judge !== DETERMINISTIC && c.answered > 0).map((c) => c.judge),
  );
  const answered = counts.reduce((a, c) => a + c.answered, 0);
  const failed = counts.reduce((a, c) => a + c.failed, 0);
  return {
    judges_asked: judges.length,
    judges_answered: judges.filter((j) => answeredJudges.has(j)).length,
    samples_asked: totalTasks,
    samples_answered: answered,
    samples_failed: failed,
    samples_pending: Math.max(0, totalTasks - answered - failed),
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
  if (/^refused:/.test(m)) return "refusal";
  if (/^truncated:/.test(m)) return "truncated";
  if (/needs [a-z0-9_]+_(api_key|base_url)|missing key|api key/.test(m)) return "missing key";
  if (/no json object|not valid json|invalid json|"score" is missing/.test(m)) return "invalid answer";
  if (/outside the scale/.test(m)) return "score out of scale";
  if (/reply .*(over|exceeds|larger)|too large/.test(m)) return "reply too large";
  if (/econnrefused|enotfound|econnreset|socket|fetch failed|network/.test(m)) return "connection failed";
  if (/deterministic/.test(m)) return "check failed";
  if (/no longer available/.test(m)) return "criterion missing";
  return "other error";
}

/**
 * Failed samples of one judge with one message (`error`, else "no score"): how many, and the id of
 * the first. SQL groups a run's failures so; failureMessagesOf does the same from sample rows.
 */
export type FailureMessage = { judge: string; message: string; count: number; firstId: number };

/** Failed samples grouped by judge and message, from sample rows (`firstId`: the position of the first). */
export function failureMessagesOf(samples: readonly SampleLike[]): FailureMessage[] {
  const by = new Map<string, FailureMessage>();
  samples.forEach((s, i) => {
    if (ok(s)) return;
    const message = s.error ?? "no score";
    const g = getOrInsert(by, `${s.judge}\u0000${message}`, () => ({
      judge: s.judge,
      message,
      count: 0,
      firstId: i,
    }));
    g.count++;
  });
  return [...by.values()];
}

/** Failed samples grouped by judge and error kind, largest group first. */
export function groupFailures(samples: readonly SampleLike[]): FailureGroup[] {
  return groupFailureMessages(failureMessagesOf(samples));
}

/**
 * Failures by judge and message grouped further by error kind, largest group first; each group's
 * example is the message of its first failed sample.
 */
export function groupFailureMessages(messages: readonly FailureMessage[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup & { firstId: number }>();
  for (const m of [...messages].sort((a, b) => a.firstId - b.firstId)) {
    const kind = errorKind(m.message);
    const g = getOrInsert(groups, `${m.judge}\u0000${kind}`, () => ({
      judge: m.judge,
      kind,
      count: 0,
      example: m.message,
      firstId: m.firstId,
    }));
    g.count += m.count;
  }
  return [...groups.values()]
    .map(({ firstId: _, ...g }) => g)
    .sort((a, b) => b.count - a.count || a.judge.localeCompare(b.judge) || a.kind.localeCompare(b.kind));
}
