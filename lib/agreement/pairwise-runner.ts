/**
 * Runs a pairwise criterion over its items with a panel of judges, each item in both orders by
 * default, through the one call scheduler and callModel (retries, timeouts, redaction) and the
 * shared response cache. Judges that cannot be called are refused before anything is spent or
 * stored; the set (items, every answer, unusable ones with their error) is stored in one transaction
 * at the end, so an interrupted audit leaves nothing partial.
 *
 * A pairwise suite is a folder with `criterion.json` (a pairwise criterion, lib/criteria/definition.ts)
 * and `dataset.json` in LLMBar's layout: a list of {input, output_1, output_2, label}, label 1 or 2
 * (0 for a tie where the criterion allows ties), with an optional `id` per item.
 */
import { createHash, randomUUID } from "node:crypto";
import path from "node:path";
import type { Db } from "@/db/client";
import {
  getAgreementItems,
  getAgreementJudgments,
  getAgreementSet,
  insertAgreementSet,
  putResponse,
} from "@/db/queries/agreement";
import { getCachedResponse } from "@/db/queries/runs";
import { type PairwiseCriterion, pairwiseCriterionSchema } from "../criteria/definition";
import { errorMessage } from "../errors";
import { createCallScheduler } from "../jobs/scheduler";
import { callJudge } from "../judging/call-judge";
import { partialReply } from "../judging/call-model";
import { maxFieldChars } from "../judging/prompt";
import { costOf, resolvePrice, type TokenUsage } from "../pricing";
import { assertJudgesReady } from "../providers/preflight";
import { readUtf8File } from "../read-text";
import type { Settings } from "../settings/schema";
import { type ImportProblem, throwIfProblems } from "./imports";
import { JsonSyntaxError, parseJsonWithLines, pathText } from "./json-lines";
import {
  buildPairwisePrompt,
  PAIR_ORDERS,
  type PairOrder,
  type PairwiseItem,
  parsePairwise,
} from "./pairwise";
import { type SetReport, setReport } from "./report";

export type PairwiseSuite = { dir: string; criterion: PairwiseCriterion; items: PairwiseItem[] };

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function readJson(file: string, problems: ImportProblem[]) {
  let text: string;
  try {
    text = readUtf8File(file);
  } catch (err) {
    problems.push({ file, line: null, field: "(file)", message: errorMessage(err) });
    return null;
  }
  try {
    return parseJsonWithLines(text);
  } catch (err) {
    problems.push({
      file,
      line: err instanceof JsonSyntaxError ? err.line : null,
      field: "(JSON)",
      message: `not valid JSON: ${errorMessage(err)}`,
    });
    return null;
  }
}

/** Loads and validates a pairwise suite folder; every problem named with its file, line and field. */
export function loadPairwiseSuite(dir: string): PairwiseSuite {
  const problems: ImportProblem[] = [];
  const cFile = path.join(dir, "criterion.json");
  const dFile = path.join(dir, "dataset.json");
  const c = readJson(cFile, problems);
  const d = readJson(dFile, problems);
  let criterion: PairwiseCriterion | undefined;
  if (c) {
    const parsed = pairwiseCriterionSchema.safeParse(c.value);
    if (parsed.success) criterion = parsed.data;
    else
      for (const issue of parsed.error.issues)
        problems.push({
          file: cFile,
          line: c.lineOf(issue.path as (string | number)[]),
          field: pathText(issue.path as (string | number)[]) || "(top level)",
          message: issue.message,
        });
  }
  const items: PairwiseItem[] = [];
  if (d) {
    if (!Array.isArray(d.value) || d.value.length === 0)
      problems.push({
        file: dFile,
        line: 1,
        field: "(top level)",
        message: "must be a non-empty JSON list of items",
      });
    else {
      const ids = new Map<string, number>();
      d.value.forEach((v, i) => {
        const bad = (field: string, message: string) =>
          problems.push({ file: dFile, line: d.lineOf([i, field]), field: pathText([i, field]), message });
        if (!isObj(v)) {
          problems.push({
            file: dFile,
            line: d.lineOf([i]),
            field: pathText([i]),
            message: "must be an object {input, output_1, output_2, label}",
          });
          return;
        }
        let ok = true;
        for (const f of ["input", "output_1", "output_2"])
          if (typeof v[f] !== "string") {
            bad(f, v[f] === undefined ? "is missing" : "must be a string");
            ok = false;
          }
        const ties = criterion?.allow_tie ?? false;
        if (!(v.label === 1 || v.label === 2 || (ties && v.label === 0))) {
          bad(
            "label",
            `must be 1 or 2${ties ? " (0 for a tie)" : ""}, got ${JSON.stringify(v.label) ?? "nothing"}`,
          );
          ok = false;
        }
        const id = v.id === undefined ? String(i + 1) : v.id;
        if (typeof id !== "string" && typeof id !== "number") {
          bad("id", "must be a string or a number");
          ok = false;
        } else if (ids.has(String(id))) {
          bad("id", `"${id}" is also the id of item ${(ids.get(String(id)) as number) + 1}`);
          ok = false;
        } else ids.set(String(id), i);
        if (ok)
          items.push({
            itemId: String(id),
            input: v.input as string,
            output1: v.output_1 as string,
            output2: v.output_2 as string,
            gold: v.label as 0 | 1 | 2,
          });
      });
    }
  }
  throwIfProblems(problems, "Nothing judged");
  return { dir, criterion: criterion as PairwiseCriterion, items };
}

export type PairwiseRunOptions = {
  judges: string[];
  /** false: the original order only (default: the criterion's both_orders, true) */
  bothOrders?: boolean;
  noCache?: boolean;
  name?: string;
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
  onProgress?: (done: number, total: number) => void;
  /** who runs it (a user's name, "local", "<os user> (cli)") */
  createdBy?: string;
};

/** The response cache's key for one call, hashed as runs hash theirs. */
export function pairwiseCacheKey(
  judge: string,
  req: { system: string; prompt: string; schema: unknown },
  temperature: number,
): string {
  return createHash("sha256")
    .update(JSON.stringify([judge, req.system, req.prompt, temperature, req.schema, 0]))
    .digest("hex");
}

/** Judges every item with every judge (in both orders by default), stores the set, returns its report. */
export async function runPairwise(
  db: Db,
  settings: Settings,
  suite: PairwiseSuite,
  opts: PairwiseRunOptions,
): Promise<{ setId: string; report: SetReport }> {
  const judges = [...new Set(opts.judges)];
  assertJudgesReady(judges, settings, { env: opts.env, what: "Nothing judged" });
  const c = suite.criterion;
  const orders: PairOrder[] = (opts.bothOrders ?? c.both_orders) ? [...PAIR_ORDERS] : ["original"];
  const j = settings.judging;
  const scheduler = createCallScheduler({
    concurrency: j.concurrency,
    perProviderConcurrency: j.perProviderConcurrency,
  });
  const budget = maxFieldChars();
  const total = suite.items.length * judges.length * orders.length;
  let done = 0;
  const one = async (item: PairwiseItem, judge: string, order: PairOrder) => {
    const req = buildPairwisePrompt(c, item, order, budget);
    const key = pairwiseCacheKey(judge, req, j.temperature);
    const base = { itemId: item.itemId, judge, order };
    const finish = <T>(x: T) => {
      opts.onProgress?.(++done, total);
      return x;
    };
    if (!opts.noCache) {
      const hit = await getCachedResponse(db, key);
      if (hit) {
        const p = parsePairwise(hit.text, order, c.allow_tie);
        if (p.ok)
          return finish({
            ...base,
            label: p.winner,
            raw: hit.text,
            error: null,
            inputTokens: hit.inputTokens,
            outputTokens: hit.outputTokens,
            costUsd: 0,
          });
      }
    }
    const price = resolvePrice(settings.prices, judge);
    const cost = (u: Partial<TokenUsage>) =>
      price
        ? costOf(price, { ...u, inputTokens: u.inputTokens ?? 0, outputTokens: u.outputTokens ?? 0 })
        : judge.startsWith("mock:")
          ? 0
          : null;
    try {
      const r = await callJudge({
        judge,
        request: req,
        settings,
        scheduler,
        temperature: j.temperature,
        signal: opts.signal,
      });
      const p = parsePairwise(r.text, order, c.allow_tie);
      if (p.ok)
        await putResponse(db, {
          key,
          text: r.text,
          inputTokens: r.inputTokens,
          outputTokens: r.outputTokens,
        });
      return finish({
        ...base,
        label: p.ok ? p.winner : null,
        raw: r.text.slice(0, 4000),
        error: p.ok ? null : p.error,
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        costUsd: cost(r),
      });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const partial = partialReply(err);
      return finish({
        ...base,
        label: null,
        raw: partial.rawText?.slice(0, 4000) ?? null,
        error: errorMessage(err),
        inputTokens: partial.inputTokens ?? 0,
        outputTokens: partial.outputTokens ?? 0,
        costUsd: cost(partial),
      });
    }
  };
  const judgments = await Promise.all(
    suite.items.flatMap((item) => judges.flatMap((judge) => orders.map((order) => one(item, judge, order)))),
  );
  const setId = `pw-${randomUUID().slice(0, 8)}`;
  await insertAgreementSet(db, {
    id: setId,
    createdBy: opts.createdBy ?? null,
    kind: "pairwise",
    name: opts.name ?? `${c.id} (${path.basename(path.resolve(suite.dir))})`,
    options: {
      format: "pairwise",
      kind: "pairwise",
      criterion: { id: c.id, version: c.version, allow_tie: c.allow_tie },
      suite: suite.dir,
      orders,
      temperature: j.temperature,
      judges,
    },
    items: suite.items.map((it, i) => ({
      itemId: it.itemId,
      position: i,
      gold: it.gold,
      data: { input: it.input, output_1: it.output1, output_2: it.output2 },
    })),
    judgments,
  });
  const set = await getAgreementSet(db, setId);
  if (!set) throw new Error(`set ${setId} was not stored`);
  const items = await getAgreementItems(db, setId);
  return { setId, report: setReport(set, items, await getAgreementJudgments(db, setId)) };
}
