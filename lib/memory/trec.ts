/**
 * TREC qrels and run files, and BEIR qrels TSV.
 *
 * - qrels: one judgment a line, "qid iter docid rel" (iter is written as 0 and ignored when read);
 *   rel must be an integer (trec_eval reads it with atol). A query with no judgment cannot be
 *   written in this format: `writeQrels` leaves it out, so it is not evaluated after a round trip.
 * - run: "qid Q0 docid rank score tag". `writeRun` sorts each query with `trecOrder` (score
 *   descending, ties by docId descending) and numbers ranks from 1. `parseRun` ignores the rank and
 *   tag columns, as trec_eval does, and returns each query's docs in `trecOrder`.
 * - Fields are whitespace-separated, so ids must be non-empty and contain no whitespace.
 * - Parsers skip blank lines, accept CRLF, and throw `Error("line N: ...")` (1-based) on a malformed
 *   line or a repeated (qid, docid) pair.
 * - Writers keep the Map's insertion order for queries (and, in qrels, for docs).
 */
import { type Qrels, type Run, trecOrder } from "./ir-metrics";

function checkId(kind: string, id: string): void {
  if (id === "" || /\s/.test(id))
    throw new Error(`${kind} ${JSON.stringify(id)} is empty or contains whitespace`);
}

function checkGrade(qid: string, docId: string, rel: number): void {
  if (!Number.isInteger(rel)) throw new Error(`relevance of ${qid}/${docId} must be an integer, got ${rel}`);
}

/** TREC qrels text, one "qid 0 docid rel" line per judgment, ending with a newline (empty text if none). */
export function writeQrels(qrels: Qrels): string {
  const lines: string[] = [];
  for (const [qid, judgments] of qrels) {
    checkId("query id", qid);
    for (const [docId, rel] of judgments) {
      checkId("doc id", docId);
      checkGrade(qid, docId, rel);
      lines.push(`${qid} 0 ${docId} ${rel}`);
    }
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** TREC run text, "qid Q0 docid rank score tag" per retrieved doc, ranks from 1 in trec_eval order. */
export function writeRun(run: Run, tag: string): string {
  checkId("run tag", tag);
  const lines: string[] = [];
  for (const [qid, docs] of run) {
    checkId("query id", qid);
    trecOrder(docs).forEach((d, i) => {
      checkId("doc id", d.docId);
      if (!Number.isFinite(d.score))
        throw new Error(`score of ${qid}/${d.docId} must be finite, got ${d.score}`);
      lines.push(`${qid} Q0 ${d.docId} ${i + 1} ${d.score} ${tag}`);
    });
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Non-blank lines split on whitespace, with their 1-based line numbers. */
function* fields(text: string): Generator<{ line: number; parts: string[] }> {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const trimmed = lines[i].trim();
    if (trimmed !== "") yield { line: i + 1, parts: trimmed.split(/\s+/) };
  }
}

function addJudgment(qrels: Qrels, line: number, qid: string, docId: string, relText: string): void {
  if (!INTEGER.test(relText)) throw new Error(`line ${line}: relevance must be an integer, got "${relText}"`);
  let judgments = qrels.get(qid);
  if (!judgments) {
    judgments = new Map();
    qrels.set(qid, judgments);
  }
  if (judgments.has(docId))
    throw new Error(`line ${line}: duplicate judgment for query "${qid}", doc "${docId}"`);
  judgments.set(docId, Number(relText));
}

/** Parses TREC qrels ("qid iter docid rel"). */
export function parseQrels(text: string): Qrels {
  const qrels: Qrels = new Map();
  for (const { line, parts } of fields(text)) {
    if (parts.length !== 4) {
      throw new Error(`line ${line}: expected 4 fields "qid iter docid rel", got ${parts.length}`);
    }
    addJudgment(qrels, line, parts[0], parts[2], parts[3]);
  }
  return qrels;
}

/** Parses a TREC run ("qid Q0 docid rank score tag"); each query's docs come back in trecOrder. */
export function parseRun(text: string): Run {
  const run: Run = new Map();
  const seen = new Map<string, Set<string>>();
  for (const { line, parts } of fields(text)) {
    if (parts.length !== 6) {
      throw new Error(`line ${line}: expected 6 fields "qid Q0 docid rank score tag", got ${parts.length}`);
    }
    const [qid, , docId, rank, scoreText] = parts;
    if (!INTEGER.test(rank)) throw new Error(`line ${line}: rank must be an integer, got "${rank}"`);
    if (!NUMBER.test(scoreText)) throw new Error(`line ${line}: score must be a number, got "${scoreText}"`);
    let docIds = seen.get(qid);
    if (!docIds) {
      docIds = new Set();
      seen.set(qid, docIds);
      run.set(qid, []);
    }
    if (docIds.has(docId)) throw new Error(`line ${line}: duplicate doc "${docId}" for query "${qid}"`);
    docIds.add(docId);
    run.get(qid)?.push({ docId, score: Number(scoreText) });
  }
  for (const [qid, docs] of run) run.set(qid, trecOrder(docs));
  return run;
}

const BEIR_HEADER = ["query-id", "corpus-id", "score"];

/** Parses BEIR's qrels/*.tsv: a "query-id\tcorpus-id\tscore" header, then tab-separated rows. */
export function parseBeirQrelsTsv(text: string): Qrels {
  const qrels: Qrels = new Map();
  const lines = text.split(/\r?\n/);
  let headerSeen = false;
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    if (lines[i].trim() === "") continue;
    const parts = lines[i].split("\t").map((p) => p.trim());
    if (!headerSeen) {
      if (parts.join("\t") !== BEIR_HEADER.join("\t")) {
        throw new Error(`line ${line}: expected the header "query-id\\tcorpus-id\\tscore"`);
      }
      headerSeen = true;
      continue;
    }
    if (parts.length !== 3)
      throw new Error(`line ${line}: expected 3 tab-separated fields, got ${parts.length}`);
    const [qid, docId, score] = parts;
    if (qid === "" || docId === "") throw new Error(`line ${line}: empty query-id or corpus-id`);
    addJudgment(qrels, line, qid, docId, score);
  }
  return qrels;
}
