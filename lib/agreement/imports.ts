/**
 * Imports of external judgments, validated whole before anything is stored: every problem is
 * collected with its file, line and field, and any problem refuses the whole import (JuryError
 * "invalid:import", exit 2). Three layouts:
 *
 * - TREC qrels: a gold file and judge files, each line `qid iter docid label` (graded, e.g. 0–3).
 *   A gold pair missing from a judge's file is counted and named, never guessed; a judge's pair
 *   that is not in the gold file is kept apart (no gold) and named too.
 * - LLMBar (github.com/princeton-nlp/LLMBar): a dataset.json list of {input, output_1, output_2,
 *   label} (label 1 or 2) and evaluators' result.json files: the same items, each with `results`,
 *   whose LAST entry holds {"swap = False": {winner}, "swap = True": {winner}}. A winner is "1" or
 *   "2" in the item's own numbering (LLMBar maps the swapped answer back), or null when LLMBar's
 *   parser found no answer: that is stored as no usable answer (wrong in accuracy, as LLMBar counts).
 * - Jury's JSONL: one object a line, {item_id, judge, label | score, gold}; see JSONL_FORMAT.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import type { NewAgreementSet } from "@/db/queries/agreement";
import { JuryError } from "../errors";
import { type JsonPath, JsonSyntaxError, nestingTooDeep, parseJsonWithLines, pathText } from "./json-lines";

export type ImportFile = { name: string; text: string };
export type ImportProblem = { file: string; line: number | null; field: string; message: string };
export type ParsedImport = Omit<NewAgreementSet, "id">;

/** The most problems an error lists (the rest are counted). */
export const MAX_PROBLEMS_SHOWN = 50;

export function problemText(p: ImportProblem): string {
  return `${p.file}${p.line === null ? "" : `:${p.line}`}: ${p.field}: ${p.message}`;
}

/** Refuses the import when there is any problem: one error listing each (file:line: field: what). */
export function throwIfProblems(unsorted: readonly ImportProblem[], what = "Nothing imported"): void {
  if (unsorted.length === 0) return;
  const problems = inLineOrder(unsorted);
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `  ${problemText(p)}`);
  const more = problems.length - shown.length;
  throw new JuryError(
    "invalid:import",
    `${what}: ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${shown.join("\n")}${more > 0 ? `\n  … and ${more} more` : ""}`,
    { problems: problems.slice(0, 1000) },
  );
}

/**
 * Problems in reading order: by file (in the order the files first appear in the list), then by line
 * (a problem of the whole file first); problems of one line keep the order they were found in.
 */
export function inLineOrder(problems: readonly ImportProblem[]): ImportProblem[] {
  const fileRank = new Map<string, number>();
  for (const p of problems) if (!fileRank.has(p.file)) fileRank.set(p.file, fileRank.size);
  return problems
    .map((p, i) => ({ p, i }))
    .sort(
      (a, b) =>
        (fileRank.get(a.p.file) as number) - (fileRank.get(b.p.file) as number) ||
        (a.p.line ?? 0) - (b.p.line ?? 0) ||
        a.i - b.i,
    )
    .map((x) => x.p);
}

/** The lines of a text (a BOM dropped), 1-based, without building an array of them. */
export function* textLines(text: string): Generator<[line: number, text: string]> {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    yield [line, text.slice(start, stop)];
    line++;
    start = end + 1;
  }
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const fileInfo = (f: ImportFile, role: string, extra: Record<string, unknown> = {}) => ({
  role,
  name: f.name,
  sha256: sha256(f.text),
  ...extra,
});

/** A judge's name from a file: LLMBar's evaluators/<LLM>/<strategy>/result.json → "<LLM>/<strategy>". */
export function judgeNameFromPath(name: string): string {
  const parts = name.split(/[\\/]/).filter(Boolean);
  const base = parts.at(-1) ?? name;
  const at = parts.lastIndexOf("evaluators");
  if (at >= 0 && parts.length - at === 4) return `${parts[at + 1]}/${parts[at + 2]}`;
  if (/^result\.json$/i.test(base) && parts.length >= 2) return parts.at(-2) as string;
  return base.replace(/\.[^.]+$/, "") || base;
}

function namesFor(
  files: readonly ImportFile[],
  given: readonly string[] | undefined,
  problems: ImportProblem[],
) {
  if (given && given.length !== files.length) {
    problems.push({
      file: "--names",
      line: null,
      field: "--names",
      message: `gives ${given.length} name${given.length === 1 ? "" : "s"} for ${files.length} judge file${files.length === 1 ? "" : "s"}`,
    });
    return files.map((f) => judgeNameFromPath(f.name));
  }
  const names = given ? [...given] : files.map((f) => judgeNameFromPath(f.name));
  const seen = new Map<string, string>();
  names.forEach((n, i) => {
    const other = seen.get(n);
    if (other !== undefined)
      problems.push({
        file: files[i].name,
        line: null,
        field: "judge name",
        message: `"${n}" is also the name of ${other}; give each judge its own name with --names a,b,…`,
      });
    else seen.set(n, files[i].name);
  });
  return names;
}

// ─── TREC qrels ──────────────────────────────────────────────────────────────

export type TrecOptions = {
  /** the graded scale, inclusive (default 0–3) */
  scale?: [number, number];
  /** binary relevance at label ≥ cut (default 2, as TREC Deep Learning binarises its 0–3 grades) */
  cut?: number;
  names?: string[];
  name?: string;
};

export const TREC_DEFAULT_SCALE: [number, number] = [0, 3];
export const TREC_DEFAULT_CUT = 2;

type QrelLine = { qid: string; docid: string; label: number; line: number };

function parseQrels(
  f: ImportFile,
  scale: [number, number],
  problems: ImportProblem[],
): Map<string, QrelLine> {
  const out = new Map<string, QrelLine>();
  for (const [line, raw] of textLines(f.text)) {
    const text = raw.trim();
    if (text === "") continue;
    const fields = text.split(/\s+/);
    const p = (field: string, message: string) => problems.push({ file: f.name, line, field, message });
    if (fields.length !== 4) {
      p("line", `expected 4 fields "qid iter docid label", got ${fields.length}`);
      continue;
    }
    const [qid, , docid, rawLabel] = fields;
    if (!/^-?\d+$/.test(rawLabel)) {
      p("field 4 (label)", `"${rawLabel.slice(0, 40)}" is not a whole number`);
      continue;
    }
    const label = Number(rawLabel);
    if (label < scale[0] || label > scale[1]) {
      p("field 4 (label)", `${label} is outside the scale ${scale[0]}–${scale[1]} (--scale)`);
      continue;
    }
    const key = `${qid} ${docid}`;
    const before = out.get(key);
    if (before) {
      p(
        "fields 1 and 3 (qid, docid)",
        `query "${qid}", document "${docid}" is already labelled at line ${before.line}`,
      );
      continue;
    }
    out.set(key, { qid, docid, label, line });
  }
  if (out.size === 0 && !problems.some((x) => x.file === f.name))
    problems.push({ file: f.name, line: null, field: "(file)", message: "holds no qrels line" });
  return out;
}

/** Parses and validates a TREC import: a gold qrels file and one or more judge qrels files. */
export function parseTrecImport(
  gold: ImportFile,
  judges: readonly ImportFile[],
  opts: TrecOptions = {},
): ParsedImport {
  const scale = opts.scale ?? TREC_DEFAULT_SCALE;
  const cut = opts.cut ?? TREC_DEFAULT_CUT;
  const problems: ImportProblem[] = [];
  if (!(Number.isInteger(scale[0]) && Number.isInteger(scale[1]) && scale[0] < scale[1]))
    problems.push({
      file: "--scale",
      line: null,
      field: "--scale",
      message: `must be low-high whole numbers, got ${scale.join("-")}`,
    });
  if (!(cut > scale[0] && cut <= scale[1]))
    problems.push({
      file: "--cut",
      line: null,
      field: "--cut",
      message: `must be above ${scale[0]} and at most ${scale[1]}, got ${cut}`,
    });
  if (judges.length === 0)
    problems.push({
      file: gold.name,
      line: null,
      field: "(judges)",
      message: "give at least one judge qrels file after the gold file",
    });
  const names = namesFor(judges, opts.names, problems);
  const goldLines = parseQrels(gold, scale, problems);
  const judgeLines = judges.map((f) => parseQrels(f, scale, problems));
  throwIfProblems(problems);

  const items: ParsedImport["items"] = [];
  const seen = new Set<string>();
  for (const g of goldLines.values()) {
    seen.add(`${g.qid} ${g.docid}`);
    items.push({
      itemId: `${g.qid} ${g.docid}`,
      position: items.length,
      gold: g.label,
      data: { qid: g.qid, docid: g.docid },
    });
  }
  // pairs a judge labelled that the gold file does not: kept, without gold, and named in the report
  for (const lines of judgeLines)
    for (const [k, l] of lines)
      if (!seen.has(k)) {
        seen.add(k);
        items.push({ itemId: k, position: items.length, gold: null, data: { qid: l.qid, docid: l.docid } });
      }
  const judgments = judgeLines.flatMap((lines, i) =>
    [...lines.entries()].map(([k, l]) => ({ itemId: k, judge: names[i], label: l.label })),
  );
  return {
    kind: "trec",
    name: opts.name ?? path.basename(gold.name),
    options: {
      format: "trec",
      kind: "graded",
      scale,
      cut,
      files: [
        fileInfo(gold, "gold", { pairs: goldLines.size }),
        ...judges.map((f, i) => fileInfo(f, "judge", { judge: names[i], pairs: judgeLines[i].size })),
      ],
    },
    items,
    judgments,
  };
}

// ─── LLMBar ──────────────────────────────────────────────────────────────────

export type LlmbarOptions = { names?: string[]; name?: string };

type ParsedJsonFile = { file: ImportFile; value: unknown; lineOf: (p: JsonPath) => number } | null;

function parseJsonFile(f: ImportFile, problems: ImportProblem[]): ParsedJsonFile {
  try {
    const { value, lineOf } = parseJsonWithLines(f.text);
    return { file: f, value, lineOf };
  } catch (err) {
    if (err instanceof JsonSyntaxError)
      problems.push({
        file: f.name,
        line: err.line,
        field: "(JSON)",
        message: `not valid JSON: ${err.message}`,
      });
    else problems.push({ file: f.name, line: null, field: "(JSON)", message: String(err) });
    return null;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

type LlmbarItem = { input: string; output1: string; output2: string; label: 1 | 2 };

/** Checks one dataset item's fields; returns it, or undefined after recording its problems. */
function llmbarItem(
  p: NonNullable<ParsedJsonFile>,
  i: number,
  problems: ImportProblem[],
): LlmbarItem | undefined {
  const v = (p.value as unknown[])[i];
  const at = (field: string) => p.lineOf([i, field]);
  const bad = (field: string, message: string, line = at(field)) =>
    problems.push({ file: p.file.name, line, field: pathText([i, field]), message });
  if (!isObj(v)) {
    problems.push({
      file: p.file.name,
      line: p.lineOf([i]),
      field: pathText([i]),
      message: "must be an object {input, output_1, output_2, label}",
    });
    return undefined;
  }
  let ok = true;
  for (const f of ["input", "output_1", "output_2"])
    if (typeof v[f] !== "string") {
      bad(
        f,
        v[f] === undefined ? "is missing" : "must be a string",
        v[f] === undefined ? p.lineOf([i]) : at(f),
      );
      ok = false;
    }
  if (v.label !== 1 && v.label !== 2) {
    bad(
      "label",
      v.label === undefined
        ? "is missing (1 or 2: the better output)"
        : `must be 1 or 2, got ${JSON.stringify(v.label)}`,
      v.label === undefined ? p.lineOf([i]) : at("label"),
    );
    ok = false;
  }
  return ok
    ? {
        input: v.input as string,
        output1: v.output_1 as string,
        output2: v.output_2 as string,
        label: v.label as 1 | 2,
      }
    : undefined;
}

const RAW_CAP = 4000;

/** A default name: the folder LLMBar keeps the set in (Dataset/LLMBar/Natural → "LLMBar Natural"). */
function llmbarSetName(dataset: ImportFile | null, results: readonly ImportFile[]): string {
  const parts = (dataset ?? results[0]).name.split(/[\\/]/).filter((p) => p && p !== ".");
  const at = parts.lastIndexOf("evaluators");
  const folder = dataset ? parts.at(-2) : at > 0 ? parts[at - 1] : undefined;
  return folder ? `LLMBar ${folder}` : "LLMBar";
}

/**
 * Parses and validates an LLMBar import: dataset.json (or null: the items of the first result.json,
 * which carries them) and one result.json per evaluator. Items are matched by position, as LLMBar
 * writes them; a result item whose input or label differs from the dataset's is a problem.
 */
export function parseLlmbarImport(
  dataset: ImportFile | null,
  results: readonly ImportFile[],
  opts: LlmbarOptions = {},
): ParsedImport {
  const problems: ImportProblem[] = [];
  if (results.length === 0)
    problems.push({
      file: dataset?.name ?? "(files)",
      line: null,
      field: "(results)",
      message: "give at least one evaluator's result.json",
    });
  const names = namesFor(results, opts.names, problems);
  const parsedResults = results.map((f) => parseJsonFile(f, problems));
  const parsedDataset = dataset ? parseJsonFile(dataset, problems) : parsedResults[0];
  const listOrProblem = (p: ParsedJsonFile) => {
    if (p && !Array.isArray(p.value)) {
      problems.push({
        file: p.file.name,
        line: 1,
        field: "(top level)",
        message: "must be a JSON list of items",
      });
      return false;
    }
    return p !== null;
  };
  const datasetOk = listOrProblem(parsedDataset);
  const resultsOk = parsedResults.map((p) => (p === parsedDataset ? datasetOk : listOrProblem(p)));
  let items: LlmbarItem[] = [];
  if (parsedDataset && datasetOk) {
    const list = parsedDataset.value as unknown[];
    if (list.length === 0)
      problems.push({
        file: parsedDataset.file.name,
        line: 1,
        field: "(top level)",
        message: "holds no item",
      });
    items = list
      .map((_, i) => llmbarItem(parsedDataset, i, problems))
      .filter((x): x is LlmbarItem => x !== undefined);
    if (items.length !== list.length) items = [];
  }
  const judgments: ParsedImport["judgments"] = [];
  parsedResults.forEach((p, r) => {
    if (!p || !resultsOk[r] || !parsedDataset || !datasetOk) return;
    const list = p.value as unknown[];
    const file = p.file.name;
    const expected = (parsedDataset.value as unknown[]).length;
    if (list.length !== expected) {
      problems.push({
        file,
        line: 1,
        field: "(top level)",
        message: `holds ${list.length} items; ${parsedDataset.file.name} holds ${expected} (items are matched by position)`,
      });
      return;
    }
    list.forEach((v, i) => {
      const line = p.lineOf([i]);
      const bad = (pathParts: JsonPath, message: string) =>
        problems.push({ file, line: p.lineOf(pathParts), field: pathText(pathParts), message });
      if (!isObj(v)) {
        problems.push({ file, line, field: pathText([i]), message: "must be an object with results" });
        return;
      }
      const item = items[i];
      if (item && p !== parsedDataset) {
        if (v.input !== undefined && v.input !== item.input)
          bad(
            [i, "input"],
            `differs from [${i}].input of ${parsedDataset.file.name} (line ${parsedDataset.lineOf([i, "input"])}; items are matched by position)`,
          );
        if (v.label !== undefined && v.label !== item.label)
          bad(
            [i, "label"],
            `is ${JSON.stringify(v.label)}, but [${i}].label of ${parsedDataset.file.name} (line ${parsedDataset.lineOf([i, "label"])}) is ${item.label}`,
          );
      }
      const res = v.results;
      if (!Array.isArray(res) || res.length === 0) {
        bad(
          [i, "results"],
          res === undefined
            ? "is missing (LLMBar's evaluator writes a results list)"
            : "must be a non-empty list",
        );
        return;
      }
      const last = res.length - 1;
      const final = res[last];
      if (!isObj(final)) {
        bad([i, "results", last], 'must be an object with "swap = False" and "swap = True"');
        return;
      }
      for (const [swapKey, order] of [
        ["swap = False", "original"],
        ["swap = True", "swapped"],
      ] as const) {
        const s = final[swapKey];
        const at: JsonPath = [i, "results", last, swapKey];
        if (!isObj(s)) {
          bad(at, s === undefined ? "is missing" : "must be an object with a winner");
          continue;
        }
        if (!("winner" in s)) {
          bad([...at, "winner"], 'is missing ("1", "2", or null when no answer was parsed)');
          continue;
        }
        const w = s.winner;
        let label: number | null;
        if (w === null) label = null;
        else if (w === "1" || w === 1) label = 1;
        else if (w === "2" || w === 2) label = 2;
        else {
          bad([...at, "winner"], `must be "1", "2" or null, got ${JSON.stringify(w).slice(0, 40)}`);
          continue;
        }
        const completion = Array.isArray(s.completion) ? s.completion[0] : s.completion;
        judgments.push({
          itemId: String(i + 1),
          judge: names[r],
          order,
          label,
          raw: typeof completion === "string" ? completion.slice(0, RAW_CAP) : null,
          error: label === null ? "no answer parsed (LLMBar's winner is null)" : null,
        });
      }
    });
  });
  throwIfProblems(problems);
  return {
    kind: "llmbar",
    name: opts.name ?? llmbarSetName(dataset, results),
    options: {
      format: "llmbar",
      kind: "pairwise",
      files: [
        ...(dataset ? [fileInfo(dataset, "dataset", { items: items.length })] : []),
        ...results.map((f, i) => fileInfo(f, "result", { judge: names[i] })),
      ],
    },
    items: items.map((it, i) => ({
      itemId: String(i + 1),
      position: i,
      gold: it.label,
      data: { input: it.input, output_1: it.output1, output_2: it.output2 },
    })),
    judgments,
  };
}

// ─── Jury's JSONL ────────────────────────────────────────────────────────────

export const JSONL_FORMAT = `One JSON object a line:
  {"item_id": "q1", "judge": "gpt-x", "label": true, "gold": false}    pass/fail (true/false, 1/0, "pass"/"fail")
  {"item_id": "q2", "judge": "gpt-x", "score": 3, "gold": 2}           a grade on a scale (whole numbers)
  {"item_id": "q2", "gold": 2}                                          gold alone (no judge)
item_id: a string or number; judge: a name; exactly one of label or score; gold: the same kind,
on any line of that item (where given twice, it must agree). Every item needs a gold label; one
line per judge and item. Blank lines and lines starting with # are skipped.`;

export type JsonlOptions = { scale?: [number, number]; cut?: number; name?: string };

function passFail(v: unknown): number | undefined {
  if (v === true || v === 1 || v === "pass") return 1;
  if (v === false || v === 0 || v === "fail") return 0;
  return undefined;
}

/** Parses and validates Jury's JSONL of judgments with gold labels. */
export function parseJsonlImport(f: ImportFile, opts: JsonlOptions = {}): ParsedImport {
  const problems: ImportProblem[] = [];
  const p = (line: number | null, field: string, message: string) =>
    problems.push({ file: f.name, line, field, message });
  // first pass: each line's object, and the file's kind from its label or score lines
  const rows: { line: number; v: Record<string, unknown>; itemId: string }[] = [];
  let kind: "pass_fail" | "graded" | undefined;
  let kindLine = 0;
  for (const [line, raw] of textLines(f.text)) {
    const text = raw.trim();
    if (text === "" || text.startsWith("#")) continue;
    const deep = nestingTooDeep(text);
    if (deep) {
      p(line, deep.length ? `${pathText(deep)}…` : "(JSON)", "nested deeper than 100 levels");
      continue;
    }
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      p(line, "(JSON)", "not a valid JSON object");
      continue;
    }
    if (!isObj(v)) {
      p(line, "(JSON)", "must be a JSON object");
      continue;
    }
    for (const k of Object.keys(v))
      if (!["item_id", "judge", "label", "score", "gold"].includes(k))
        p(line, k, "unknown field (item_id, judge, label, score, gold)");
    const id = v.item_id;
    if (!(typeof id === "string" && id.trim() !== "") && !(typeof id === "number" && Number.isFinite(id))) {
      p(line, "item_id", id === undefined ? "is missing" : "must be a non-empty string or a number");
      continue;
    }
    if ("label" in v && "score" in v) {
      p(line, "label, score", "give one of label (pass/fail) or score (a grade), not both");
      continue;
    }
    const lineKind = "label" in v ? "pass_fail" : "score" in v ? "graded" : undefined;
    if (lineKind && kind === undefined) {
      kind = lineKind;
      kindLine = line;
    } else if (lineKind && lineKind !== kind) {
      p(
        line,
        lineKind === "pass_fail" ? "label" : "score",
        `line ${kindLine} has ${kind === "pass_fail" ? "a pass/fail label" : "a score"}: one file holds one kind`,
      );
      continue;
    }
    rows.push({ line, v, itemId: String(id) });
  }
  // a file of gold lines only: its kind from the gold values
  if (kind === undefined)
    kind = rows.some((r) => typeof r.v.gold === "number" && passFail(r.v.gold) === undefined)
      ? "graded"
      : "pass_fail";
  const k = kind;
  const value = (line: number, field: string, x: unknown): number | undefined => {
    if (k === "pass_fail") {
      const b = passFail(x);
      if (b === undefined)
        p(
          line,
          field,
          `must be pass/fail: true, false, 1, 0, "pass" or "fail"; got ${JSON.stringify(x)?.slice(0, 40)}`,
        );
      return b;
    }
    if (typeof x !== "number" || !Number.isInteger(x)) {
      p(line, field, `must be a whole number on the scale, got ${JSON.stringify(x)?.slice(0, 40)}`);
      return undefined;
    }
    if (opts.scale && (x < opts.scale[0] || x > opts.scale[1])) {
      p(line, field, `${x} is outside the scale ${opts.scale[0]}–${opts.scale[1]} (--scale)`);
      return undefined;
    }
    return x;
  };
  // second pass: values, gold per item, one line per judge and item
  const gold = new Map<string, { value: number; line: number }>();
  const order: string[] = [];
  const firstLine = new Map<string, number>();
  const judged = new Map<string, { itemId: string; judge: string; label: number; line: number }>();
  for (const { line, v, itemId } of rows) {
    if (!firstLine.has(itemId)) {
      firstLine.set(itemId, line);
      order.push(itemId);
    }
    if ("gold" in v) {
      const g = value(line, "gold", v.gold);
      const before = gold.get(itemId);
      if (g !== undefined && before && before.value !== g)
        p(
          line,
          "gold",
          `is ${JSON.stringify(v.gold)}, but line ${before.line} gives item "${itemId}" another gold label`,
        );
      else if (g !== undefined && !before) gold.set(itemId, { value: g, line });
    }
    const field = "label" in v ? "label" : "score" in v ? "score" : undefined;
    if (field) {
      const judge = v.judge;
      if (typeof judge !== "string" || judge.trim() === "") {
        p(
          line,
          "judge",
          judge === undefined
            ? "is missing (a line with a label or score names its judge)"
            : "must be a non-empty string",
        );
        continue;
      }
      const label = value(line, field, v[field]);
      if (label === undefined) continue;
      const key = `${judge.trim()}\u0000${itemId}`;
      const before = judged.get(key);
      if (before) {
        p(line, "judge", `"${judge}" already judged item "${itemId}" at line ${before.line}`);
        continue;
      }
      judged.set(key, { itemId, judge: judge.trim(), label, line });
    } else if ("judge" in v) p(line, "label, score", "a line naming a judge needs its label or score");
    else if (!("gold" in v)) p(line, "gold", "a line without a judge must give the gold label");
  }
  // an item whose gold was given but refused already has its problem; every other item without gold is named
  const goldRefused = new Set(rows.filter((r) => "gold" in r.v).map((r) => r.itemId));
  for (const itemId of order)
    if (!gold.has(itemId) && !goldRefused.has(itemId))
      p(firstLine.get(itemId) ?? null, "gold", `item "${itemId}" has no gold label on any line`);
  if (rows.length === 0 && problems.length === 0) p(null, "(file)", "holds no judgment");
  let scale = opts.scale;
  if (k === "graded" && !scale && problems.length === 0) {
    // a loop, not Math.min(...all): a spread of 150,000 values overflows the call stack
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (const v of [...gold.values()].map((g) => g.value).concat([...judged.values()].map((j) => j.label))) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    scale = [lo, hi];
  }
  if (k === "graded" && opts.cut !== undefined && scale && !(opts.cut > scale[0] && opts.cut <= scale[1]))
    problems.push({
      file: "--cut",
      line: null,
      field: "--cut",
      message: `must be above ${scale[0]} and at most ${scale[1]}, got ${opts.cut}`,
    });
  throwIfProblems(problems);
  return {
    kind: "jsonl",
    name: opts.name ?? path.basename(f.name),
    options: {
      format: "jsonl",
      kind: k,
      ...(k === "graded" ? { scale, ...(opts.cut !== undefined ? { cut: opts.cut } : {}) } : {}),
      files: [fileInfo(f, "judgments", { lines: rows.length })],
    },
    items: order.map((itemId, i) => ({
      itemId,
      position: i,
      gold: gold.get(itemId)?.value ?? null,
      data: null,
    })),
    judgments: [...judged.values()].map((j) => ({ itemId: j.itemId, judge: j.judge, label: j.label })),
  };
}
