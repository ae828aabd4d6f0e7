import type { PgDb } from "../client";
import type { NewSample, Task } from "../schema";

/**
 * PostgreSQL's side of a run's hot path (a claim, a commit of answers), in SQL text written once and
 * prepared once per connection (named statements), as SQLite's path uses prepared statements: drizzle
 * builds a query's SQL anew on each call, which at hundreds of claims and commits a second costs more
 * CPU than the calls themselves. The query functions (claims.ts, runs.ts) keep the contract and call
 * these on PostgreSQL; the contract tests hold both stores to it.
 */

/** A task row as node-postgres returns it (bigint columns as strings). */
type TaskRow = {
  id: string;
  run_id: string;
  key: string;
  case_id: string;
  criterion_id: string;
  judge: string;
  sample_index: string;
  status: Task["status"];
  fresh: number;
  claimed_by: string | null;
  claim_expires_at: string | null;
};

const taskOf = (r: TaskRow): Task => ({
  id: Number(r.id),
  runId: r.run_id,
  key: r.key,
  caseId: r.case_id,
  criterionId: r.criterion_id,
  judge: r.judge,
  sampleIndex: Number(r.sample_index),
  status: r.status,
  fresh: Number(r.fresh) === 1,
  claimedBy: r.claimed_by,
  claimExpiresAt: r.claim_expires_at === null ? null : new Date(Number(r.claim_expires_at)),
});

const TASK_COLUMNS =
  "t.id, t.run_id, t.key, t.case_id, t.criterion_id, t.judge, t.sample_index, t.status, t.fresh, t.claimed_by, t.claim_expires_at";

// one statement: a window of the run's free pending tasks (of one provider, and those that call no
// model), locked with SKIP LOCKED so two claimers never wait for each other nor get one task; of it
// the first `calls` of the provider and `deterministic` of the others are claimed
const CLAIM = `with cand as (
    select id, judge from tasks
    where run_id = $1 and status = 'pending' and (claim_expires_at is null or claim_expires_at <= $2)
      and ($3::text[] is null or judge = any($3::text[]))
      and (judge = 'deterministic' or ($4::text is not null and left(judge, length($4) + 1) = $4 || ':'))
    order by id
    limit $5::integer + $6::integer
    for update skip locked
  ), picked as (
    select id from (
      select id, judge,
        count(*) filter (where judge <> 'deterministic') over (order by id) as calls,
        count(*) filter (where judge = 'deterministic') over (order by id) as others
      from cand
    ) x
    where (judge <> 'deterministic' and calls <= $5::integer) or (judge = 'deterministic' and others <= $6::integer)
  )
  update tasks t set claimed_by = $7, claim_expires_at = $8
  from picked where t.id = picked.id
  returning ${TASK_COLUMNS}`;

export const pgClaim = {
  /** Claims up to `calls` free tasks of `provider` (none when null) and `deterministic` that call no model. */
  async claim(
    db: PgDb,
    a: {
      runId: string;
      workerId: string;
      now: Date;
      until: Date;
      judges?: readonly string[];
      provider: string | null;
      calls: number;
      deterministic: number;
    },
  ): Promise<Task[]> {
    const got = await db.$client.query<TaskRow>({
      name: "jury_claim",
      text: CLAIM,
      values: [
        a.runId,
        a.now.getTime(),
        a.judges ? [...a.judges] : null,
        a.provider,
        a.calls,
        a.deterministic,
        a.workerId,
        a.until.getTime(),
      ],
    });
    return got.rows.map(taskOf);
  },
};

/** One judgment to record: its sample's columns (as SQLite's statements write them), its task's status, its cached response. */
export type PgSampleRow = Required<Omit<NewSample, "id" | "supersededAt" | "supersededReason">> & {
  status: "done" | "error";
  cache?: { key: string; text: string; inputTokens: number; outputTokens: number };
};

// one statement, one round trip, atomic: the tasks still pending are marked, and only theirs get a
// sample and a cached response (a task already answered writes nothing)
const RECORD_SAMPLES = `with v as (
    select * from unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
      $7::bigint[], $8::float8[], $9::text[], $10::text[], $11::bigint[], $12::bigint[], $13::bigint[],
      $14::float8[], $15::bigint[], $16::integer[], $17::text[], $18::text[], $19::bigint[], $20::bigint[],
      $21::bigint[], $22::bigint[], $23::float8[], $24::integer[], $25::text[], $26::text[], $27::bigint[],
      $28::bigint[])
      as v(task_id, status, run_id, case_id, criterion_id, judge, sample_index, score, reasoning, raw_text,
        latency_ms, input_tokens, output_tokens, cost_usd, attempts, cached, error, request_key, created_at,
        cache_read_tokens, cache_write_tokens, reasoning_tokens, cache_saved_usd, batched,
        cache_key, cache_text, cache_input_tokens, cache_output_tokens)
  ), marked as (
    update tasks t set status = v.status from v where t.id = v.task_id and t.status = 'pending' returning t.id
  ), written as (
    insert into samples (task_id, run_id, case_id, criterion_id, judge, sample_index, score, reasoning, raw_text,
      latency_ms, input_tokens, output_tokens, cost_usd, attempts, cached, error, request_key, created_at,
      cache_read_tokens, cache_write_tokens, reasoning_tokens, cache_saved_usd, batched)
    select v.task_id, v.run_id, v.case_id, v.criterion_id, v.judge, v.sample_index, v.score, v.reasoning,
      v.raw_text, v.latency_ms, v.input_tokens, v.output_tokens, v.cost_usd, v.attempts, v.cached, v.error,
      v.request_key, v.created_at, v.cache_read_tokens, v.cache_write_tokens, v.reasoning_tokens,
      v.cache_saved_usd, v.batched
    from v join marked on marked.id = v.task_id
  ), cached as (
    insert into response_cache (key, text, input_tokens, output_tokens, created_at)
    select distinct on (v.cache_key) v.cache_key, v.cache_text, v.cache_input_tokens, v.cache_output_tokens, v.created_at
    from v join marked on marked.id = v.task_id
    where v.cache_key is not null
    order by v.cache_key
    on conflict (key) do nothing
  )
  select id from marked`;

/**
 * Records judgments in one statement; says for each whether it was written (its task was still
 * pending). A task named twice is written once, for its first judgment.
 */
export async function pgRecordSamples(db: PgDb, rows: readonly PgSampleRow[]): Promise<boolean[]> {
  const first = new Map<number, number>();
  rows.forEach((r, i) => {
    if (!first.has(r.taskId)) first.set(r.taskId, i);
  });
  const unique = [...first.values()].map((i) => rows[i]);
  const col = <T>(f: (r: PgSampleRow) => T) => unique.map(f);
  const got = await db.$client.query<{ id: string }>({
    name: "jury_record_samples",
    text: RECORD_SAMPLES,
    values: [
      col((r) => r.taskId),
      col((r) => r.status),
      col((r) => r.runId),
      col((r) => r.caseId),
      col((r) => r.criterionId),
      col((r) => r.judge),
      col((r) => r.sampleIndex),
      col((r) => r.score),
      col((r) => r.reasoning),
      col((r) => r.rawText),
      col((r) => Math.round(r.latencyMs)),
      col((r) => r.inputTokens),
      col((r) => r.outputTokens),
      col((r) => r.costUsd),
      col((r) => r.attempts),
      col((r) => (r.cached ? 1 : 0)),
      col((r) => r.error),
      col((r) => r.requestKey),
      col((r) => r.createdAt.getTime()),
      col((r) => r.cacheReadTokens),
      col((r) => r.cacheWriteTokens),
      col((r) => r.reasoningTokens),
      col((r) => r.cacheSavedUsd),
      col((r) => (r.batched ? 1 : 0)),
      col((r) => r.cache?.key ?? null),
      col((r) => r.cache?.text ?? null),
      col((r) => r.cache?.inputTokens ?? null),
      col((r) => r.cache?.outputTokens ?? null),
    ],
  });
  const marked = new Set(got.rows.map((r) => Number(r.id)));
  return rows.map((r, i) => first.get(r.taskId) === i && marked.has(r.taskId));
}
