import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Coverage, CriterionVerdict, PanelOptions } from "../lib/judging/aggregate";
import type { RetrievalKind } from "../lib/memory/kinds";
import type { CaseCriterion } from "../lib/runs/plan-run";

// ─── Settings ────────────────────────────────────────────────────────────────
// One row (id = 1). The JSON is validated by lib/settings/schema.ts on every read and write.
export const settings = sqliteTable("settings", {
  id: integer().primaryKey(),
  data: text({ mode: "json" }).$type<unknown>().notNull(),
  /** who saved them last (a user's name; "local" without users; the CLI's OS user) */
  updatedBy: text(),
  updatedAt: integer({ mode: "timestamp_ms" })
    .notNull()
    .$defaultFn(() => new Date()),
});

// ─── Jobs ────────────────────────────────────────────────────────────────────
// Every long piece of work (a panel run, a memory experiment, a review started from the dashboard)
// has a job row, keyed by the id of what it works on. Only one live owner works a job at a time:
// it claims the row by compare-and-set and keeps `heartbeat_at` fresh; a dead owner's job is taken
// over by a resume, or marked interrupted at start-up. See lib/jobs/runner.ts.
export const jobKinds = ["run", "experiment", "review", "agreement"] as const;
export type JobKind = (typeof jobKinds)[number];
export const jobStatuses = ["queued", "running", "done", "failed", "cancelled", "interrupted"] as const;
export type JobStatus = (typeof jobStatuses)[number];

export const jobs = sqliteTable(
  "jobs",
  {
    id: text().primaryKey(),
    kind: text({ enum: jobKinds }).notNull(),
    status: text({ enum: jobStatuses }).notNull().default("queued"),
    ownerPid: integer(),
    ownerHost: text(),
    /** a token unique to one claim, so a process never mistakes another claim of its own pid for its own */
    ownerToken: text(),
    heartbeatAt: integer({ mode: "timestamp_ms" }),
    cancelRequested: integer({ mode: "boolean" }).notNull().default(false),
    done: integer().notNull().default(0),
    total: integer().notNull().default(0),
    errors: integer().notNull().default(0),
    /** why the job stopped, when it did not finish on its own (a storage error, a dead owner…) */
    error: text(),
    createdAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
    startedAt: integer({ mode: "timestamp_ms" }),
    finishedAt: integer({ mode: "timestamp_ms" }),
  },
  (t) => [index("jobs_status_idx").on(t.status), index("jobs_kind_created_at_idx").on(t.kind, t.createdAt)],
);

export type Job = typeof jobs.$inferSelect;

// ─── Judge panel runs ────────────────────────────────────────────────────────
// done_with_failures: finished, but some planned samples failed (lib/runs/coverage.ts groups them)
export const runStatuses = [
  "queued",
  "running",
  "done",
  "done_with_failures",
  "failed",
  "cancelled",
  "interrupted",
] as const;
export type RunStatus = (typeof runStatuses)[number];

export type RunOptions = {
  judges: string[];
  n: number;
  temperature: number;
  concurrency: number;
  /** calls in flight to any one provider, for this run (`--provider-concurrency`); absent: Settings' */
  providerConcurrency?: number;
  noCache: boolean;
  /** the panel options (consensus_threshold, flag_low_consensus, report_uncertainty), as the run was planned */
  panel?: PanelOptions;
  /** judges with no price when the run was planned: their cost is unknown, never $0 */
  unpriced?: string[];
  /** a criterion's own panel (promoted in Settings), over `judges`; `judges` then lists every judge the run calls */
  criterionJudges?: Record<string, string[]>;
  /** a criterion's own N (promoted in Settings), over `n` */
  criterionN?: Record<string, number>;
  /** ask the providers to cache each prompt's stable prefix; absent: on (Settings' judging.promptCaching) */
  promptCaching?: boolean;
  /** send the OpenAI and Anthropic judges' calls through their batch APIs (the others run live) */
  batch?: boolean;
  /** what the AI SDK warned of while the run's calls were made (each once), recorded as the run works */
  providerWarnings?: string[];
};

export const runs = sqliteTable(
  "runs",
  {
    id: text().primaryKey(),
    suitePath: text().notNull(),
    suiteName: text().notNull(),
    status: text({ enum: runStatuses }).notNull().default("queued"),
    options: text({ mode: "json" }).$type<RunOptions>().notNull(),
    totalTasks: integer().notNull().default(0),
    error: text(),
    /** process that owns the run while it is running; a dead owner means "interrupted" */
    ownerPid: integer(),
    cancelRequested: integer({ mode: "boolean" }).notNull().default(false),
    /** who started it (a user's name, "local" without users, or the CLI's OS user); null: before authors were kept */
    createdBy: text(),
    createdAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
    startedAt: integer({ mode: "timestamp_ms" }),
    finishedAt: integer({ mode: "timestamp_ms" }),
  },
  (t) => [index("runs_created_at_idx").on(t.createdAt)],
);

/** What a run judged: a snapshot of each case, so a run page stays true after the suite changes. */
export const runCases = sqliteTable(
  "run_cases",
  {
    runId: text()
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    caseId: text().notNull(),
    name: text().notNull(),
    input: text({ mode: "json" }).$type<Record<string, unknown>>().notNull(),
    output: text().notNull(),
    criteria: text({ mode: "json" }).$type<CaseCriterion[]>().notNull(),
  },
  (t) => [uniqueIndex("run_cases_run_id_case_id_idx").on(t.runId, t.caseId)],
);

export const taskStatuses = ["pending", "done", "error"] as const;

/** One unit of work: case × criterion × judge × sample. `key` is stable so a run resumes. */
export const tasks = sqliteTable(
  "tasks",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    runId: text()
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    key: text().notNull(),
    caseId: text().notNull(),
    criterionId: text().notNull(),
    judge: text().notNull(),
    sampleIndex: integer().notNull(),
    status: text({ enum: taskStatuses }).notNull().default("pending"),
    /** the next call skips the response cache: a re-sampled item asks its judges anew */
    fresh: integer({ mode: "boolean" }).notNull().default(false),
    /**
     * The worker whose call this pending task is (workers.id) and until when: claimed in batches so
     * that several processes, on several machines, work one run and no task is called twice; a claim
     * past its time (its worker died) is free again. Null: nobody's.
     */
    claimedBy: text(),
    claimExpiresAt: integer({ mode: "timestamp_ms" }),
  },
  (t) => [
    uniqueIndex("tasks_run_id_key_idx").on(t.runId, t.key),
    index("tasks_run_id_status_idx").on(t.runId, t.status),
    // the live claims of a run (claimed, pending, not expired): a range of this index, not every
    // pending task (the index above keeps a run's pending tasks in id order for the claims' window)
    index("tasks_run_id_status_claim_idx").on(t.runId, t.status, t.claimExpiresAt),
  ],
);

// ─── Workers ─────────────────────────────────────────────────────────────────
// Each process that works runs (`jury worker`, `jury eval`, the dashboard) has a row while it does:
// its heartbeat says it is alive, `run_id` what it works now. Task claims name it (tasks.claimed_by).
export const workerKinds = ["worker", "eval", "dashboard"] as const;
export type WorkerKind = (typeof workerKinds)[number];

/** A worker's part of its run's concurrency: calls at once in total, and per provider. */
export type WorkerSlots = { total: number; providers: Record<string, number> };

export const workers = sqliteTable(
  "workers",
  {
    id: text().primaryKey(),
    kind: text({ enum: workerKinds }).notNull(),
    host: text().notNull(),
    pid: integer().notNull(),
    runId: text(),
    startedAt: integer({ mode: "timestamp_ms" }).notNull(),
    heartbeatAt: integer({ mode: "timestamp_ms" }).notNull(),
    /**
     * Its part of its run's concurrency (in total and per provider), taken in its claims: the parts of
     * the live workers on a run never add up past the run's limits. Null while it wants none (it holds
     * no task and found none to claim).
     */
    slots: text({ mode: "json" }).$type<WorkerSlots>(),
  },
  (t) => [index("workers_run_id_idx").on(t.runId)],
);

export type Worker = typeof workers.$inferSelect;

/** Why a sample was replaced by a new one: its task failed and was retried, or its item was re-sampled. */
export const supersededReasons = ["retried", "resampled"] as const;
export type SupersededReason = (typeof supersededReasons)[number];

/**
 * One per finished task: a score or a recorded error. A retried or re-sampled task gets a new
 * sample; the old one is kept, marked superseded (when and why). Only one current (not superseded)
 * sample per task (unique task_id where superseded_at is null); verdicts count current samples only.
 */
export const samples = sqliteTable(
  "samples",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    taskId: integer()
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    runId: text().notNull(),
    caseId: text().notNull(),
    criterionId: text().notNull(),
    judge: text().notNull(),
    sampleIndex: integer().notNull(),
    score: real(),
    reasoning: text(),
    rawText: text(),
    latencyMs: integer().notNull().default(0),
    inputTokens: integer().notNull().default(0),
    outputTokens: integer().notNull().default(0),
    costUsd: real().notNull().default(0),
    attempts: integer().notNull().default(1),
    cached: integer({ mode: "boolean" }).notNull().default(false),
    error: text(),
    /** of input_tokens, those read from the provider's prompt cache */
    cacheReadTokens: integer().notNull().default(0),
    /** of input_tokens, those written to the provider's prompt cache */
    cacheWriteTokens: integer().notNull().default(0),
    /** of output_tokens, the model's reasoning */
    reasoningTokens: integer().notNull().default(0),
    /** what the prompt cache saved on this call, in USD (a write's premium counted against it) */
    cacheSavedUsd: real().notNull().default(0),
    /** answered through the provider's batch API, priced at its batch rate */
    batched: integer({ mode: "boolean" }).notNull().default(false),
    /** sha256 of the exact request (judge, messages, schema, temperature, sample index): the response cache's key */
    requestKey: text(),
    createdAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
    /** set when a newer sample replaced this one (kept for the record, never in a verdict) */
    supersededAt: integer({ mode: "timestamp_ms" }),
    supersededReason: text({ enum: supersededReasons }),
  },
  (t) => [
    uniqueIndex("samples_task_id_idx").on(t.taskId).where(sql`superseded_at is null`),
    // cost_usd last: a run's cost is summed from the index, no sample row read (getProgressByRun)
    index("samples_run_id_case_id_idx").on(t.runId, t.caseId, t.criterionId, t.costUsd),
    // each judge's latest live calls, newest first (getMedianLatencyByJudge reads K rows per judge)
    index("samples_judge_live_idx")
      .on(t.judge, t.id)
      .where(sql`cached = 0 and error is null and judge != 'deterministic'`),
  ],
);

/**
 * A finished run's progress, as getProgressByRun reports it (done and failed tasks, the cost of every
 * sample), so the runs list does not count a settled run's samples again on every view. Kept by
 * triggers (migration 0009): written when the run's status becomes a finished one, removed when it
 * goes back to queued or running and when a sample is stored for it. No row: count it live.
 */
export const runTotals = sqliteTable("run_totals", {
  runId: text()
    .primaryKey()
    .references(() => runs.id, { onDelete: "cascade" }),
  done: integer().notNull(),
  errors: integer().notNull(),
  costUsd: real().notNull(),
});

/** Aggregated verdict per case × criterion, recomputed from samples when a run finishes. */
export const results = sqliteTable(
  "results",
  {
    runId: text()
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    caseId: text().notNull(),
    criterionId: text().notNull(),
    finalScore: real(),
    passed: integer({ mode: "boolean" }).notNull(),
    consensusLevel: text(),
    flagForReview: integer({ mode: "boolean" }).notNull().default(false),
    data: text({ mode: "json" }).$type<CriterionVerdict>().notNull(),
  },
  (t) => [uniqueIndex("results_run_id_case_id_criterion_id_idx").on(t.runId, t.caseId, t.criterionId)],
);

export const batchStatuses = [
  "submitted",
  "in_progress",
  "ended",
  "collected",
  "cancelling",
  "cancelled",
  "failed",
  "expired",
] as const;
export type BatchStatus = (typeof batchStatuses)[number];

/**
 * A batch of a run's judge calls sent through a provider's batch API (OpenAI Batches, Anthropic
 * Message Batches): its id is stored before anything else happens, so a restart polls it again and
 * never submits the same calls twice. Each request's custom id is its task's id.
 */
export const runBatches = sqliteTable(
  "run_batches",
  {
    /** the provider's batch id */
    id: text().primaryKey(),
    runId: text()
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    judge: text().notNull(),
    status: text({ enum: batchStatuses }).notNull().default("submitted"),
    /** the task ids it asks for */
    taskIds: text({ mode: "json" }).$type<number[]>().notNull(),
    succeeded: integer().notNull().default(0),
    failed: integer().notNull().default(0),
    /** OpenAI: the uploaded input file */
    inputFileId: text(),
    error: text(),
    createdAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
    updatedAt: integer({ mode: "timestamp_ms" }),
  },
  (t) => [index("run_batches_run_id_idx").on(t.runId)],
);
export type RunBatch = typeof runBatches.$inferSelect;

/** Model responses keyed by a hash of model, messages, parameters and sample index. */
export const responseCache = sqliteTable("response_cache", {
  key: text().primaryKey(),
  text: text().notNull(),
  inputTokens: integer().notNull().default(0),
  outputTokens: integer().notNull().default(0),
  createdAt: integer({ mode: "timestamp_ms" }).notNull().default(sql`(unixepoch() * 1000)`),
});

// ─── Types ───────────────────────────────────────────────────────────────────
export type Run = typeof runs.$inferSelect;
export type NewRun = typeof runs.$inferInsert;
export type Task = typeof tasks.$inferSelect;
export type Sample = typeof samples.$inferSelect;
export type NewSample = typeof samples.$inferInsert;
export type ResultRow = typeof results.$inferSelect;
export type RunCase = typeof runCases.$inferSelect;

// ─── Memories and the precision study ────────────────────────────────────────
/** A stored memory. `collection` groups a memory set (the hook's, a study's, an imported BEIR corpus). */
export const memories = sqliteTable(
  "memories",
  {
    rowid: integer().primaryKey({ autoIncrement: true }),
    collection: text().notNull(),
    memoryId: text().notNull(),
    category: text().notNull(),
    title: text().notNull(),
    tags: text({ mode: "json" }).$type<string[]>().notNull(),
    body: text().notNull().default(""),
    source: text(),
    createdAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
    updatedAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [uniqueIndex("memories_collection_memory_id_idx").on(t.collection, t.memoryId)],
);

/** A study's queries (a prompt a person would type). */
export const studyQueries = sqliteTable(
  "study_queries",
  {
    collection: text().notNull(),
    queryId: text().notNull(),
    text: text().notNull(),
    /** false for a query imported without labels: it "needs annotation" and stays out of every metric */
    labelled: integer({ mode: "boolean" }).notNull().default(true),
  },
  (t) => [uniqueIndex("study_queries_collection_query_id_idx").on(t.collection, t.queryId)],
);

/**
 * What a collection's labels mean. `qrels` (imported BEIR/TREC judgments): an unjudged document is
 * not relevant, as trec_eval counts it. `annotated` (labelled in Jury): an unjudged document
 * "needs annotation". `origin` says where the labels came from (example, import, beir:test…).
 */
export const studyMeta = sqliteTable("study_meta", {
  collection: text().primaryKey(),
  labelConvention: text({ enum: ["qrels", "annotated"] })
    .notNull()
    .default("annotated"),
  origin: text().notNull().default("import"),
  createdAt: integer({ mode: "timestamp_ms" })
    .notNull()
    .$defaultFn(() => new Date()),
});

/** Ground truth: is this memory relevant to this query? From imported qrels or a person's click. */
export const annotations = sqliteTable(
  "annotations",
  {
    collection: text().notNull(),
    queryId: text().notNull(),
    memoryId: text().notNull(),
    relevance: integer().notNull(),
    source: text({ enum: ["qrels", "human", "example"] }).notNull(),
    /** who gave the label now held (a user's name, "local", the CLI's OS user); null: imported or before authors were kept */
    author: text(),
    updatedAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [uniqueIndex("annotations_collection_query_memory_idx").on(t.collection, t.queryId, t.memoryId)],
);

/** What a fresh annotation cleared from one query: its labels and whether it was labelled, for undo. */
export type ClearedLabels = {
  labels: {
    memoryId: string;
    relevance: number;
    source: "qrels" | "human" | "example";
    /** who had given it (absent: before authors were kept) */
    author?: string | null;
  }[];
  labelled: boolean;
};

/**
 * Every change to a relevance label, with where it came from and when: shown per query, and undone.
 * A change to one memory's label names the memory; a fresh annotation's start is one entry for the
 * whole query (no memory, source "fresh"), holding the labels it cleared, and so is its undo.
 */
export const annotationHistory = sqliteTable(
  "annotation_history",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    collection: text().notNull(),
    queryId: text().notNull(),
    /** the memory whose label changed; null for a change to the whole query */
    memoryId: text(),
    /** the label after the change; null when the label was removed */
    relevance: integer(),
    /** the label before it; null when there was none */
    previous: integer(),
    source: text({ enum: ["qrels", "human", "example", "undo", "fresh"] }).notNull(),
    /** a change to the whole query: the labels it cleared (a fresh start) or brought back (its undo) */
    cleared: text({ mode: "json" }).$type<ClearedLabels>(),
    /** who made the change; null: imported, or before authors were kept */
    author: text(),
    at: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [index("annotation_history_collection_query_idx").on(t.collection, t.queryId, t.at)],
);

export type RetrievalConfig = {
  kind: RetrievalKind;
  mode: "auto" | "search";
  topK: number;
  poolSize: number;
  shuffle: boolean;
  /** a salt for the shuffle, so order consistency can be measured under two orders */
  shuffleSalt?: string;
  model?: string;
  n?: number;
  includeBody?: boolean;
};

export const experiments = sqliteTable(
  "experiments",
  {
    id: text().primaryKey(),
    collection: text().notNull(),
    label: text().notNull(),
    config: text({ mode: "json" }).$type<RetrievalConfig>().notNull(),
    status: text({ enum: runStatuses }).notNull().default("queued"),
    error: text(),
    /** who started it; null: before authors were kept */
    createdBy: text(),
    createdAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
    finishedAt: integer({ mode: "timestamp_ms" }),
  },
  (t) => [index("experiments_collection_idx").on(t.collection)],
);

/** One query's outcome under one configuration: the ranked candidates and what was kept. */
export const experimentResults = sqliteTable(
  "experiment_results",
  {
    experimentId: text()
      .notNull()
      .references(() => experiments.id, { onDelete: "cascade" }),
    queryId: text().notNull(),
    candidates: text({ mode: "json" }).$type<{ memoryId: string; score: number }[]>().notNull(),
    retrieved: text({ mode: "json" }).$type<string[]>().notNull(),
    path: text().notNull(),
    latencyMs: real().notNull(),
    inputTokens: integer().notNull().default(0),
    outputTokens: integer().notNull().default(0),
    costUsd: real().notNull().default(0),
    error: text(),
  },
  (t) => [uniqueIndex("experiment_results_experiment_query_idx").on(t.experimentId, t.queryId)],
);

/** The hook's and search's own log: which D4 path each retrieval took. */
export const retrievalLog = sqliteTable(
  "retrieval_log",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    at: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
    collection: text().notNull(),
    mode: text().notNull(),
    path: text().notNull(),
    candidates: integer().notNull(),
    returned: integer().notNull(),
    latencyMs: real().notNull(),
    error: text(),
    /** who asked: the hook, `jury memory search`, or the /jury:memory-search skill */
    source: text().notNull().default("hook"),
    /** the prompt or query, cut to 500 characters */
    query: text(),
    candidateIds: text({ mode: "json" }).$type<string[]>(),
    keptIds: text({ mode: "json" }).$type<string[]>(),
    /** candidates the judge dropped, with its reason where it gave one */
    dropped: text({ mode: "json" }).$type<{ memoryId: string; reason?: string }[]>(),
    inputTokens: integer().notNull().default(0),
    outputTokens: integer().notNull().default(0),
    costUsd: real().notNull().default(0),
  },
  (t) => [index("retrieval_log_at_idx").on(t.at)],
);

export type Memory = typeof memories.$inferSelect;
export type Experiment = typeof experiments.$inferSelect;
export type ExperimentResult = typeof experimentResults.$inferSelect;

// ─── Code reviews ────────────────────────────────────────────────────────────
export type ReviewRecord = {
  context: Record<string, unknown>;
  gate?: { verdict: "pass" | "fail"; reasoning: string; skipped?: string } | null;
  judgment?: Record<string, unknown> | null;
  samples: {
    judge: string;
    sampleIndex: number;
    dimension?: string;
    raw: string;
    valid: boolean;
    error?: string;
    parsed?: unknown;
    latencyMs: number;
    inputTokens?: number;
    outputTokens?: number;
    /** null: the judge has no price (unknown, never $0) */
    costUsd?: number | null;
  }[];
  warnings: string[];
  diagnosis?: string | null;
  /** every call (gate, judgment samples, diagnosis) with its tokens and cost */
  calls?: {
    step: "gate" | "judgment" | "diagnosis";
    judge: string;
    sampleIndex?: number;
    dimension?: string;
    inputTokens: number;
    outputTokens: number;
    costUsd: number | null;
    latencyMs: number;
    error?: string;
  }[];
  /** what the judge did: not enabled, throttled, failed (with the error), answered, not asked */
  judge?: { status: string; reason?: string; error?: string };
  coverage?: Coverage;
  transcript?: { path: string; source: "given" | "found" } | null;
  costUsd?: number | null;
};

export const reviews = sqliteTable(
  "reviews",
  {
    id: text().primaryKey(),
    createdAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
    title: text().notNull(),
    /** final verdict: the judgment's, else the test-only gate's */
    verdict: text({ enum: ["pass", "partial", "fail"] }).notNull(),
    verdictSource: text({ enum: ["judge", "gate", "tests"] }).notNull(),
    score: real(),
    mechanicalScore: real(),
    blendedScore: real(),
    diff: text().notNull(),
    record: text({ mode: "json" }).$type<ReviewRecord>().notNull(),
    /** who asked for it; null: before authors were kept */
    createdBy: text(),
  },
  (t) => [index("reviews_created_at_idx").on(t.createdAt)],
);

/** Judgments made, for the hourly throttle that holds across processes. */
export const judgeEvents = sqliteTable(
  "judge_events",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    kind: text().notNull(),
    at: integer({ mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("judge_events_kind_at_idx").on(t.kind, t.at)],
);

export type Review = typeof reviews.$inferSelect;

// ─── Agreement: human labels on verdicts, imported judgments, pairwise audits ─
// A person's label on a run's case × criterion (the gold a judge is measured against). One row per
// case × criterion holds the label now; every change (and every undo) is kept in the history.
export const verdictLabelSources = ["human", "import", "undo"] as const;

export const verdictLabels = sqliteTable(
  "verdict_labels",
  {
    runId: text()
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    caseId: text().notNull(),
    criterionId: text().notNull(),
    passed: integer({ mode: "boolean" }).notNull(),
    /** a score on the criterion's scale, where it has one; null: pass/fail only */
    score: real(),
    source: text({ enum: ["human", "import"] }).notNull(),
    /** who labelled it, as they gave their name (the dashboard has no accounts); null: not said */
    labeller: text(),
    /** who gave the label now held (a user's name, "local", the CLI's OS user); null: imported or before authors were kept */
    author: text(),
    note: text(),
    updatedAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [uniqueIndex("verdict_labels_run_case_criterion_idx").on(t.runId, t.caseId, t.criterionId)],
);

/** Every change to a verdict label: the label after and before it, where it came from and when. */
export const verdictLabelHistory = sqliteTable(
  "verdict_label_history",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    runId: text()
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    caseId: text().notNull(),
    criterionId: text().notNull(),
    /** the label after the change; null when the label was removed */
    passed: integer({ mode: "boolean" }),
    score: real(),
    /** the label before it; null when there was none */
    previousPassed: integer({ mode: "boolean" }),
    previousScore: real(),
    source: text({ enum: verdictLabelSources }).notNull(),
    labeller: text(),
    /** who made the change; null: imported, or before authors were kept */
    author: text(),
    at: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [index("verdict_label_history_run_idx").on(t.runId, t.caseId, t.criterionId, t.at)],
);

/**
 * A set of judgments measured against gold labels: imported (TREC qrels, LLMBar, Jury's JSONL) or
 * made by Jury's pairwise runner. `options` holds the scale (for weighted κ), the binary cut, the
 * files it came from and their checksums.
 */
export const agreementSetKinds = ["trec", "llmbar", "jsonl", "pairwise"] as const;
export type AgreementSetKind = (typeof agreementSetKinds)[number];

export const agreementSets = sqliteTable(
  "agreement_sets",
  {
    id: text().primaryKey(),
    kind: text({ enum: agreementSetKinds }).notNull(),
    name: text().notNull(),
    options: text({ mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** who imported or made it; null: before authors were kept */
    createdBy: text(),
    createdAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [index("agreement_sets_created_at_idx").on(t.createdAt)],
);

/** One item of a set with its gold label (null: no gold) and what was judged (input, outputs). */
export const agreementItems = sqliteTable(
  "agreement_items",
  {
    setId: text()
      .notNull()
      .references(() => agreementSets.id, { onDelete: "cascade" }),
    itemId: text().notNull(),
    position: integer().notNull(),
    gold: real(),
    data: text({ mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [uniqueIndex("agreement_items_set_item_idx").on(t.setId, t.itemId)],
);

/**
 * One judge's answer on one item. `order`: "" for a pointwise label; "original" or "swapped" for a
 * pairwise judgment, whose `label` is the winner in the item's own numbering (1, 2; 0 a tie).
 * `label` null: the judge gave no usable answer (unparsable, or failed): counted, never guessed.
 */
export const agreementJudgments = sqliteTable(
  "agreement_judgments",
  {
    setId: text()
      .notNull()
      .references(() => agreementSets.id, { onDelete: "cascade" }),
    itemId: text().notNull(),
    judge: text().notNull(),
    order: text().notNull().default(""),
    label: real(),
    raw: text(),
    error: text(),
    inputTokens: integer().notNull().default(0),
    outputTokens: integer().notNull().default(0),
    costUsd: real(),
  },
  (t) => [
    uniqueIndex("agreement_judgments_set_item_judge_order_idx").on(t.setId, t.itemId, t.judge, t.order),
  ],
);

/**
 * A computed agreement report, stored so pages, `jury agreement show` and exports read it instead of
 * recomputing: one per import (`set`) or labelled run (`run`). `stamp` says what it was computed
 * from (for a run, its labels' count and newest change): a report whose stamp no longer matches is
 * stale and is computed again, as a job.
 */
export const agreementReports = sqliteTable("agreement_reports", {
  subjectId: text().primaryKey(),
  kind: text({ enum: ["set", "run"] }).notNull(),
  stamp: text().notNull(),
  report: text().notNull(),
  /** CPU milliseconds the computation took */
  cpuMs: integer().notNull(),
  computedAt: integer({ mode: "timestamp_ms" }).notNull(),
});

export type VerdictLabel = typeof verdictLabels.$inferSelect;
export type AgreementSet = typeof agreementSets.$inferSelect;
export type AgreementItem = typeof agreementItems.$inferSelect;
export type AgreementJudgment = typeof agreementJudgments.$inferSelect;

// ─── People: users, their sign-in sessions, and the audit log ────────────────
// A user is a name, a role and a personal token, stored only as a scrypt hash (lib/auth/tokens.ts).
// The token names its user (`jury_<id>_<secret>`), so a request costs one lookup by id. A sign-in
// session (the dashboard's cookie) is stored as the SHA-256 of its random id; removing or rotating a
// user deletes their sessions, so their cookie and token stop working at once.
export const userRoles = ["viewer", "annotator", "admin"] as const;
export type UserRole = (typeof userRoles)[number];

export const users = sqliteTable(
  "users",
  {
    id: text().primaryKey(),
    name: text().notNull(),
    role: text({ enum: userRoles }).notNull(),
    /** scrypt$N$r$p$salt$hash of the token's secret part (base64url); never the token */
    tokenHash: text().notNull(),
    createdBy: text(),
    createdAt: integer({ mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
    rotatedAt: integer({ mode: "timestamp_ms" }),
  },
  (t) => [uniqueIndex("users_name_idx").on(t.name)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    /** SHA-256 (hex) of the cookie's random id */
    idHash: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer({ mode: "timestamp_ms" }).notNull(),
    expiresAt: integer({ mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

/** Append-only: who changed what and when (settings, endpoints, prices, promote, users). */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    at: integer({ mode: "timestamp_ms" }).notNull(),
    actor: text().notNull(),
    /** e.g. "settings.save", "promote.experiment", "user.add" */
    action: text().notNull(),
    /** what it changed: a user's name, a criterion, a collection; null: the settings as a whole */
    target: text(),
    /** what changed, without secrets (key values are never recorded) */
    detail: text({ mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [index("audit_log_at_idx").on(t.at)],
);

export type User = typeof users.$inferSelect;
export type AuditEntry = typeof auditLog.$inferSelect;
