import fs from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import type { Db } from "@/db/client";
import {
  type DroppedMemory,
  existingMemoryIds,
  getRetrieval,
  listRetrievals,
  logRetrieval,
  type RetrievalLogRow,
} from "@/db/queries/memories";
import { JuryError } from "../errors";
import { DEFAULT_COLLECTION } from "../memory/collection";
import { type RetrievalOutcome, retrievalDecision } from "../memory/retrieve";
import { redactSecrets } from "../redact";

export const MEMORY_LOG_HELP = `Usage: jury memory log [--json] [--limit N] [--collection <name>]
       jury memory log --record '<json>' | --record -

Every retrieval, newest first: the hook's (source hook), \`jury memory search\`'s (source search)
and the /jury:memory-search skill's decisions (source skill). Each row: when, source, mode, the fallback path,
the BM25 candidates, what was kept, what the judge dropped with its reasons, latency, tokens, cost.

  --json                 the rows as JSON
  --limit N              how many rows (1 to 1000, default 20)
  --collection <name>    only this collection's rows (default: every collection)

Recording what the /jury:memory-search skill kept (the agent judged the candidates of a search):
  --record '<json>'      {"log_id": <the search's log_id>, "kept": ["id", ...],
                          "dropped": [{"id": "id", "reason": "a few words"}, ...]}
                         (or, without a search row: "query" and "candidates" instead of "log_id";
                         "collection" defaults to the search's, else --collection, else the
                         collection every jury memory command reads: jury memory --help)
  --record -             the same JSON on stdin
`;

const MAX_IDS = 200;
const id = z.string().trim().min(1).max(500);
const recordSchema = z.strictObject({
  log_id: z.int().positive().optional(),
  collection: z.string().trim().min(1).max(200).optional(),
  query: z.string().max(2000).optional(),
  candidates: z.array(id).max(MAX_IDS).optional(),
  kept: z.array(id).max(MAX_IDS),
  dropped: z
    .array(z.union([id, z.strictObject({ id, reason: z.string().max(500).optional() })]))
    .max(MAX_IDS)
    .optional(),
});
export type SkillRecord = z.infer<typeof recordSchema>;

/** `jury memory log …` (argv after `log`). */
export async function memoryLogCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      json: { type: "boolean" },
      limit: { type: "string" },
      collection: { type: "string" },
      record: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(MEMORY_LOG_HELP);
    return 0;
  }
  if (positionals.length)
    throw new JuryError("usage", `jury memory log takes no arguments, got "${positionals[0]}"`);
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!/^\d+$/.test(values.limit ?? "20") || limit < 1 || limit > 1000)
    throw new JuryError("usage", `--limit must be a whole number from 1 to 1000, got "${values.limit}"`);
  if (values.record !== undefined && values.limit !== undefined)
    throw new JuryError("usage", "--limit is for listing the log, not with --record");
  const { getDb } = await import("@/db/client");
  const db = getDb();
  if (values.record !== undefined) {
    const text = values.record === "-" ? fs.readFileSync(0, "utf8") : values.record;
    const { resolveCliCollection } = await import("./memory-shared");
    const fallback = (await resolveCliCollection(db, values.collection)).name;
    const id = await recordSkillDecision(db, parseRecord(text), fallback);
    process.stdout.write(
      values.json ? `${JSON.stringify({ log_id: id })}\n` : `Recorded the skill's decision as #${id}.\n`,
    );
    return 0;
  }
  const rows = await listRetrievals(db, { limit, collection: values.collection });
  if (values.json) process.stdout.write(`${JSON.stringify(rows.map(rowJson), null, 2)}\n`);
  else process.stdout.write(rows.length ? rows.map(formatRow).join("\n") : "No retrieval logged yet.\n");
  return 0;
}

function parseRecord(text: string): SkillRecord {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new JuryError("usage", `--record: not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  const r = recordSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new JuryError(
      "usage",
      `--record: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`,
    );
  }
  return r.data;
}

/**
 * Records what the /jury:memory-search skill's judge (the agent, with its full conversation) kept of a
 * search's candidates: a retrieval_log row with source "skill", path "agent_judge". Its query and
 * candidates are the search row's (`log_id`) or given; kept and dropped must be candidates; a candidate
 * in neither list counts as dropped, without a reason. Returns the new row's id.
 */
export async function recordSkillDecision(
  db: Db,
  rec: SkillRecord,
  collectionFlag?: string,
): Promise<number> {
  let search: RetrievalLogRow | undefined;
  if (rec.log_id !== undefined) {
    search = await getRetrieval(db, rec.log_id);
    if (!search) throw new JuryError("usage", `--record: log_id ${rec.log_id}: no such retrieval`);
    if (search.source !== "search")
      throw new JuryError(
        "usage",
        `--record: log_id ${rec.log_id} is a ${search.source} retrieval; give the log_id a \`jury memory search\` printed`,
      );
  } else if (rec.query === undefined || rec.candidates === undefined)
    throw new JuryError(
      "usage",
      '--record: give "log_id" (from `jury memory search --json`), or "query" and "candidates"',
    );
  const collection = rec.collection ?? search?.collection ?? collectionFlag ?? DEFAULT_COLLECTION;
  if (search && collection !== search.collection)
    throw new JuryError(
      "usage",
      `--record: collection "${collection}" is not the searched collection "${search.collection}"`,
    );
  const candidates = rec.candidates ?? search?.candidateIds ?? [];
  const query = rec.query ?? search?.query ?? "";
  const inCandidates = new Set(candidates);
  // one entry per memory (the first the skill gave), its reason one line
  const byId = new Map<string, DroppedMemory>();
  for (const d of rec.dropped ?? []) {
    const memoryId = typeof d === "string" ? d : d.id;
    const reason = typeof d === "string" ? "" : (d.reason ?? "").trim().replace(/\s+/g, " ");
    if (!byId.has(memoryId))
      byId.set(memoryId, reason ? { memoryId, reason: redactSecrets(reason) } : { memoryId });
  }
  const dropped = [...byId.values()];
  const named = [...rec.kept, ...dropped.map((d) => d.memoryId)];
  const strangers = named.filter((m) => !inCandidates.has(m));
  if (strangers.length)
    throw new JuryError(
      "usage",
      `--record: ${strangers.map((s) => `"${s}"`).join(", ")} ${strangers.length === 1 ? "is" : "are"} not among the search's candidates`,
    );
  const both = rec.kept.filter((m) => dropped.some((d) => d.memoryId === m));
  if (both.length) throw new JuryError("usage", `--record: "${both[0]}" is both kept and dropped`);
  // candidates given by hand must be memories of the collection (a search's are, by construction)
  const existing = rec.candidates ? await existingMemoryIds(db, collection, [...inCandidates]) : inCandidates;
  const missing = [...inCandidates].filter((m) => !existing.has(m));
  if (missing.length)
    throw new JuryError(
      "usage",
      `--record: ${missing.map((s) => `"${s}"`).join(", ")}: no such memory in collection "${collection}"`,
    );
  const kept = [...new Set(rec.kept)];
  // a candidate neither kept nor named as dropped was dropped without a reason
  for (const c of candidates)
    if (!kept.includes(c) && !dropped.some((d) => d.memoryId === c)) dropped.push({ memoryId: c });
  return await logRetrieval(db, {
    collection,
    mode: "search",
    source: "skill",
    path: "agent_judge",
    query: redactSecrets(query),
    candidateIds: candidates,
    keptIds: kept,
    dropped,
    // the agent's judging time, from the search it judged (its tokens are the agent's own, not known here)
    latencyMs: search ? Math.max(0, Date.now() - search.at) : 0,
  });
}

/**
 * Records a `jury memory search` (source "search") and returns the row's id; null, with a note on
 * stderr, when the row cannot be written (the search's answer still stands).
 */
export async function logSearch(
  db: Db,
  s: { collection: string; query: string; mode: string; outcome: RetrievalOutcome },
): Promise<number | null> {
  const r = s.outcome;
  try {
    return await logRetrieval(db, {
      collection: s.collection,
      mode: s.mode,
      source: "search",
      path: r.path,
      query: redactSecrets(s.query),
      ...retrievalDecision(r),
      latencyMs: r.latencyMs,
      error: r.error,
    });
  } catch (err) {
    process.stderr.write(`note: the search was not recorded in retrieval_log: ${(err as Error).message}\n`);
    return null;
  }
}

/** The BM25 candidates of a search as `jury memory search --json` shows them, for a judge to read. */
export function searchCandidates(r: RetrievalOutcome) {
  return r.poolMemories.map((m) => ({
    id: m.memoryId,
    category: m.category,
    title: m.title,
    tags: m.tags,
    score: Number(m.score.toFixed(4)),
    snippet: m.body.replace(/\s+/g, " ").trim().slice(0, 300),
  }));
}

const rowJson = (r: RetrievalLogRow) => ({
  id: r.id,
  at: new Date(r.at).toISOString(),
  source: r.source,
  collection: r.collection,
  mode: r.mode,
  path: r.path,
  query: r.query,
  candidate_ids: r.candidateIds,
  kept_ids: r.keptIds,
  dropped: r.dropped,
  latency_ms: Math.round(r.latencyMs * 10) / 10,
  input_tokens: r.inputTokens,
  output_tokens: r.outputTokens,
  cost_usd: r.costUsd,
  error: r.error,
});

function formatRow(r: RetrievalLogRow): string {
  const when = new Date(r.at).toISOString().replace("T", " ").slice(0, 19);
  const tokens =
    r.inputTokens || r.outputTokens ? `  ${r.inputTokens} in / ${r.outputTokens} out tokens` : "";
  const cost = r.costUsd ? `  $${r.costUsd.toFixed(5)}` : "";
  const q = r.query ?? "";
  const lines = [
    `#${r.id}  ${when}  ${r.source.padEnd(6)}  ${r.mode.padEnd(6)}  ${r.path.padEnd(16)}  kept ${r.keptIds.length} of ${r.candidateIds.length}  ${r.latencyMs.toFixed(0)} ms${tokens}${cost}  [${r.collection}]`,
    `    query: ${JSON.stringify(q.length > 100 ? `${q.slice(0, 100)}…` : q)}`,
    `    kept: ${r.keptIds.join(", ") || "—"}`,
  ];
  if (r.dropped?.length)
    lines.push(
      `    dropped: ${r.dropped.map((d) => (d.reason ? `${d.memoryId} (${d.reason})` : d.memoryId)).join(", ")}`,
    );
  if (r.error) lines.push(`    error: ${r.error}`);
  return `${lines.join("\n")}\n`;
}
