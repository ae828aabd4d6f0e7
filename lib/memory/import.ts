import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Db } from "@/db/client";
import { type MemoryInput, upsertMemories } from "@/db/queries/memories";
import { writeStudy } from "@/db/queries/memory-tx";
import { type Annotation, getStudyMeta, type StudyQuery } from "@/db/queries/study";
import { JuryError } from "../errors";
import { jsonSyntaxError, parseJsonText, readTextFileSafe } from "../read-text";

const memoryFileSchema = z.object({
  id: z.string().trim().min(1).max(200),
  category: z.string().trim().min(1).max(50),
  title: z.string().trim().min(1).max(1000),
  tags: z.array(z.string().max(100)).max(50).default([]),
  body: z.string().max(100_000).default(""),
  source: z.string().max(500).optional(),
  created_at: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
  updated_at: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
});

const issuesText = (issues: z.core.$ZodIssue[]) =>
  issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");

/** A file of the folder being imported: inside it (symlinks resolved), regular, within the size limit. */
function readText(file: string, root: string): string {
  return readTextFileSafe(file, { root, code: "invalid:import" });
}

function toMemory(v: z.infer<typeof memoryFileSchema>): MemoryInput {
  return {
    memoryId: v.id,
    category: v.category,
    title: v.title,
    tags: v.tags,
    body: v.body,
    source: v.source ?? null,
    createdAt: v.created_at ? new Date(v.created_at) : undefined,
    updatedAt: v.updated_at ? new Date(v.updated_at) : undefined,
  };
}

/** Reads every *.json memory file in a folder (one memory or an array each). Validates all before writing any. */
export function readMemoryFolder(dir: string): MemoryInput[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new JuryError("invalid:import", `${dir}: not a folder`);
  const out: MemoryInput[] = [];
  const seen = new Map<string, string>();
  for (const name of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .sort()) {
    const file = path.join(dir, name);
    const json = parseJsonText(readText(file, dir), file, "invalid:import");
    const items = Array.isArray(json) ? json : [json];
    items.forEach((item, i) => {
      const r = memoryFileSchema.safeParse(item);
      const where = Array.isArray(json) ? `${file} [${i}]` : file;
      if (!r.success) throw new JuryError("invalid:import", `${where}: ${issuesText(r.error.issues)}`);
      const prev = seen.get(r.data.id);
      if (prev) throw new JuryError("invalid:import", `${where}: id "${r.data.id}" is also used in ${prev}`);
      seen.set(r.data.id, where);
      out.push(toMemory(r.data));
    });
  }
  if (out.length === 0) throw new JuryError("invalid:import", `${dir}: no *.json memory files`);
  return out;
}

export async function importMemoryFolder(db: Db, dir: string, collection: string): Promise<number> {
  return await upsertMemories(db, collection, readMemoryFolder(dir));
}

function readJsonl(
  file: string,
  root: string,
  schema: z.ZodType,
  each: (v: never, line: number) => void,
): void {
  const lines = readText(file, root).split("\n");
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      const where = jsonSyntaxError(line).replace(/^at line 1, /, "at ");
      throw new JuryError("invalid:import", `${file}:${i + 1}: invalid JSON ${where}`);
    }
    const r = schema.safeParse(v);
    if (!r.success) throw new JuryError("invalid:import", `${file}:${i + 1}: ${issuesText(r.error.issues)}`);
    each(r.data as never, i + 1);
  });
}

const beirDoc = z.object({
  _id: z.union([z.string(), z.number()]).transform(String),
  title: z.string().default(""),
  text: z.string(),
});
const beirQuery = z.object({ _id: z.union([z.string(), z.number()]).transform(String), text: z.string() });

/** The qrels split an import reads: `--split`, else test when present, else the only one there is. */
export function pickQrelsSplit(
  qrelsDir: string,
  split?: string,
): { split: string; file: string; available: string[] } {
  const available = fs
    .readdirSync(qrelsDir)
    .filter((n) => n.endsWith(".tsv"))
    .map((n) => n.slice(0, -".tsv".length))
    .sort();
  const list = available.length ? available.join(", ") : "none";
  if (split !== undefined) {
    if (!/^[\w.-]+$/.test(split))
      throw new JuryError("usage", `--split must be a split name like test, got "${split}"`);
    if (!available.includes(split))
      throw new JuryError(
        "usage",
        `--split ${split}: no qrels/${split}.tsv in ${qrelsDir} (splits there: ${list})`,
      );
    return { split, file: path.join(qrelsDir, `${split}.tsv`), available };
  }
  if (available.includes("test")) return { split: "test", file: path.join(qrelsDir, "test.tsv"), available };
  if (available.length === 1)
    return { split: available[0], file: path.join(qrelsDir, `${available[0]}.tsv`), available };
  throw new JuryError(
    available.length === 0 ? "invalid:import" : "usage",
    available.length === 0
      ? `${qrelsDir}: no *.tsv qrels file`
      : `${qrelsDir} has several splits (${list}) and no test: pick one with --split`,
  );
}

export type BeirData = {
  memories: MemoryInput[];
  queries: StudyQuery[];
  qrels: Annotation[];
  split: string;
  /** the files read, relative to the folder */
  files: string[];
  /** queries in queries.jsonl with no judgment in the split: not imported (BEIR evaluates only judged queries) */
  queriesNotInSplit: number;
};

/**
 * A BEIR-style collection: corpus.jsonl, queries.jsonl and one qrels split (qrels/<split>.tsv).
 * As BEIR's loader does, only the queries the split judges are kept. A document without a title
 * keeps an empty title (BM25 then ranks it on its text alone).
 */
export function readBeir(dir: string, opts: { split?: string } = {}): BeirData {
  const need = (f: string) => {
    const p = path.join(dir, f);
    if (!fs.existsSync(p)) throw new JuryError("invalid:import", `${dir}: missing ${f}`);
    return p;
  };
  const memories: MemoryInput[] = [];
  const corpusFile = need("corpus.jsonl");
  const docLine = new Map<string, number>();
  readJsonl(corpusFile, dir, beirDoc, (d: z.infer<typeof beirDoc>, line: number) => {
    const prev = docLine.get(d._id);
    if (prev)
      throw new JuryError(
        "invalid:import",
        `${corpusFile}:${line}: document id "${d._id}" is also on line ${prev}`,
      );
    docLine.set(d._id, line);
    memories.push({ memoryId: d._id, category: "document", title: d.title, tags: [], body: d.text });
  });
  if (memories.length === 0) throw new JuryError("invalid:import", `${corpusFile}: no documents`);
  const allQueries: StudyQuery[] = [];
  readJsonl(need("queries.jsonl"), dir, beirQuery, (q: z.infer<typeof beirQuery>) =>
    allQueries.push({ queryId: q._id, text: q.text }),
  );
  const qrelsDir = need("qrels");
  const { split, file } = pickQrelsSplit(qrelsDir, opts.split);
  const qrels: Annotation[] = [];
  const where: string[] = [];
  readText(file, dir)
    .split("\n")
    .forEach((line, i) => {
      const cols = line.trim().split("\t");
      if (!line.trim() || (i === 0 && cols[0] === "query-id")) return;
      const rel = Number(cols[2]);
      if (cols.length < 3 || !Number.isInteger(rel)) {
        // names the column count and the score, never the whole line
        throw new JuryError(
          "invalid:import",
          `${file}:${i + 1}: expected "query-id<TAB>corpus-id<TAB>score", got ${cols.length < 3 ? `${cols.length} column${cols.length === 1 ? "" : "s"}` : `score ${JSON.stringify(cols[2].slice(0, 20))}, not a whole number`}`,
        );
      }
      qrels.push({ queryId: cols[0], memoryId: cols[1], relevance: rel, source: "qrels" });
      where.push(`${file}:${i + 1}`);
    });
  const docIds = new Set(memories.map((m) => m.memoryId));
  const queryIds = new Set(allQueries.map((q) => q.queryId));
  const badAt = qrels.findIndex((q) => !docIds.has(q.memoryId) || !queryIds.has(q.queryId));
  if (badAt >= 0) {
    const bad = qrels[badAt];
    throw new JuryError(
      "invalid:import",
      `${where[badAt]}: names ${!docIds.has(bad.memoryId) ? `document "${bad.memoryId}", which is not in corpus.jsonl` : `query "${bad.queryId}", which is not in queries.jsonl`}`,
    );
  }
  const judged = new Set(qrels.map((q) => q.queryId));
  const queries = allQueries.filter((q) => judged.has(q.queryId));
  if (queries.length === 0) throw new JuryError("invalid:import", `${file}: judges no query`);
  return {
    memories,
    queries,
    qrels,
    split,
    files: ["corpus.jsonl", "queries.jsonl", path.relative(dir, file)],
    queriesNotInSplit: allQueries.length - queries.length,
  };
}

/**
 * An import may add to a collection whose labels came from the same place (a re-import), never
 * mix two sources of ground truth in one collection.
 */
async function checkOrigin(db: Db, collection: string, origin: string): Promise<void> {
  const meta = await getStudyMeta(db, collection);
  if (meta && meta.origin !== origin)
    throw new JuryError(
      "usage",
      `collection "${collection}" already holds a study whose labels come from ${meta.origin}, not ${origin}: import into another --collection`,
    );
}

/** Writes a whole collection in one transaction: all of it, or nothing. Its labels follow trec_eval's convention. */
export async function importBeir(
  db: Db,
  dir: string,
  collection: string,
  opts: { split?: string } = {},
): Promise<{
  memories: number;
  queries: number;
  qrels: number;
  split: string;
  files: string[];
  queriesNotInSplit: number;
}> {
  const data = readBeir(dir, opts);
  const origin = `beir:${data.split}`;
  await checkOrigin(db, collection, origin);
  await writeStudy(db, collection, data, { labelConvention: "qrels", origin });
  return {
    memories: data.memories.length,
    queries: data.queries.length,
    qrels: data.qrels.filter((q) => q.relevance > 0).length,
    split: data.split,
    files: data.files,
    queriesNotInSplit: data.queriesNotInSplit,
  };
}

const studyQueriesSchema = z.array(
  z.object({
    id: z.string().min(1),
    text: z.string().min(1),
    /** absent: the query needs annotation; present (even empty): every memory not listed is judged not relevant */
    relevant: z.array(z.string()).optional(),
  }),
);
const studyFileSchema = z.object({ labels: z.enum(["example", "import"]).optional() }).loose();

/**
 * A study folder: memories/*.json, queries.json and an optional study.json. A query with
 * `relevant` is fully judged (listed memories relevant, every other one not); a query without it
 * needs annotation (no label, out of every metric until a person labels it). study.json's
 * `"labels": "example"` marks the labels as an example's (the bundled example study).
 */
export async function importStudyFolder(
  db: Db,
  dir: string,
  collection: string,
): Promise<{ memories: number; queries: number; qrels: number; needsAnnotation: number; origin: string }> {
  const memories = readMemoryFolder(path.join(dir, "memories"));
  const file = path.join(dir, "queries.json");
  const r = studyQueriesSchema.safeParse(parseJsonText(readText(file, dir), file, "invalid:import"));
  if (!r.success) throw new JuryError("invalid:import", `${file}: ${issuesText(r.error.issues)}`);
  let origin: "example" | "import" = "import";
  const studyFile = path.join(dir, "study.json");
  if (fs.existsSync(studyFile)) {
    const s = studyFileSchema.safeParse(parseJsonText(readText(studyFile, dir), studyFile, "invalid:import"));
    if (!s.success) throw new JuryError("invalid:import", `${studyFile}: ${issuesText(s.error.issues)}`);
    origin = s.data.labels ?? "import";
  }
  const source = origin === "example" ? "example" : "qrels";
  const parsed = r.data;
  const ids = new Set(memories.map((m) => m.memoryId));
  const queries = parsed.map((q) => ({ queryId: q.id, text: q.text, labelled: q.relevant !== undefined }));
  const qrels: Annotation[] = [];
  for (const q of parsed) {
    if (q.relevant === undefined) continue;
    const relevant = new Set(q.relevant);
    for (const r of relevant)
      if (!ids.has(r))
        throw new JuryError("invalid:import", `${file}: query ${q.id} names unknown memory "${r}"`);
    // complete judgments: listed memories relevant, every other one judged not relevant
    for (const id of ids)
      qrels.push({ queryId: q.id, memoryId: id, relevance: relevant.has(id) ? 1 : 0, source });
  }
  await checkOrigin(db, collection, origin);
  await writeStudy(db, collection, { memories, queries, qrels }, { labelConvention: "annotated", origin });
  return {
    memories: memories.length,
    queries: queries.length,
    qrels: qrels.filter((q) => q.relevance > 0).length,
    needsAnnotation: queries.filter((q) => !q.labelled).length,
    origin,
  };
}
