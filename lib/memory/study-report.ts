/**
 * Everything the study page and `jury memory metrics` show about a collection's experiments, computed
 * in one place so both say the same: each configuration's metrics under the collection's label
 * convention, whether it finished, and which one (if any) may be called best.
 */
import type { Db } from "@/db/client";
import { getExperiment, getExperimentResults, listExperiments } from "@/db/queries/experiments";
import { getJob } from "@/db/queries/jobs";
import { countMemories } from "@/db/queries/memories";
import { getQrels, getStudyMeta, listStudies, listStudyQueries } from "@/db/queries/study";
import type { Experiment, ExperimentResult } from "@/db/schema";
import { JuryError } from "../errors";
import { type Price, resolvePrice } from "../pricing";
import { type ResolvedCollection, resolutionReason } from "./collection";
import { type ExperimentConfig, runDepth } from "./experiment";
import type { Qrels } from "./ir-metrics";
import {
  type BestVerdict,
  type ExperimentMetrics,
  experimentMetrics,
  type LabelConvention,
  pickBest,
} from "./study-metrics";

export type LabelsInfo = {
  convention: LabelConvention;
  /** where the labels came from: "example", "import", "beir:test", "human"… */
  origin: string;
  /** a sentence for the page and the CLI */
  description: string;
};

export async function labelsInfo(db: Db, collection: string): Promise<LabelsInfo> {
  const meta = await getStudyMeta(db, collection);
  const convention = meta?.labelConvention ?? "annotated";
  const origin = meta?.origin ?? "import";
  const from =
    origin === "example"
      ? "example labels, written by hand for the bundled example (an illustration, not a benchmark)"
      : origin === "human"
        ? "labels set by a person in Jury"
        : origin.startsWith("beir:")
          ? `imported BEIR qrels (split ${origin.slice(5)})`
          : "imported labels";
  const rule =
    convention === "qrels"
      ? "an unjudged document counts as not relevant, as trec_eval counts it"
      : "an unjudged memory needs annotation and is left out of precision";
  return { convention, origin, description: `${from}; ${rule}` };
}

export type ExperimentReport = {
  experiment: Experiment;
  rows: ExperimentResult[];
  metrics: ExperimentMetrics;
  /** queries planned when it started (the job's total), and whether all finished with status done */
  planned: number;
  finished: number;
  complete: boolean;
  /** why the figures are partial, when they are */
  notice?: string;
};

export async function experimentReport(
  db: Db,
  e: Experiment,
  qrels: Qrels,
  convention: LabelConvention,
  prices: Record<string, Price>,
): Promise<ExperimentReport> {
  const rows = await getExperimentResults(db, e.id);
  const config = e.config as ExperimentConfig;
  const planned =
    (await getJob(db, { id: e.id }))?.total || (await listStudyQueries(db, e.collection)).length;
  const complete = e.status === "done" && rows.length >= planned;
  const notice = complete
    ? undefined
    : `experiment ${e.status === "done" ? "incomplete" : e.status}: ${rows.length} of ${planned} queries finished; figures cover only those${
        e.status === "interrupted" || e.status === "cancelled"
          ? ` (resume: jury memory experiment --resume ${e.id})`
          : ""
      }`;
  const metrics = experimentMetrics(rows, qrels, {
    topK: config.topK,
    kind: config.kind,
    depth: runDepth(config),
    convention,
    model: config.model,
    price: config.model ? resolvePrice(prices, config.model) : undefined,
  });
  return { experiment: e, rows, metrics, planned, finished: rows.length, complete, notice };
}

export type StudyReport = {
  collection: string;
  labels: LabelsInfo;
  queries: number;
  /** queries that need annotation: left out of every metric */
  needsAnnotation: number;
  qrels: Qrels;
  experiments: ExperimentReport[];
  best: BestVerdict;
};

export async function studyReport(
  db: Db,
  collection: string,
  prices: Record<string, Price>,
): Promise<StudyReport> {
  const labels = await labelsInfo(db, collection);
  const queries = await listStudyQueries(db, collection);
  const qrels = await getQrels(db, collection);
  const experiments: ExperimentReport[] = [];
  for (const e of await listExperiments(db, collection))
    experiments.push(await experimentReport(db, e, qrels, labels.convention, prices));
  const best = pickBest(
    experiments.map((r) => ({
      id: r.experiment.id,
      label: r.experiment.label,
      rows: r.rows,
      metrics: r.metrics,
      complete: r.complete,
      topK: r.experiment.config.topK,
    })),
    qrels,
    labels.convention,
  );
  return {
    collection,
    labels,
    queries: queries.length,
    needsAnnotation: queries.filter((q) => !q.labelled).length,
    qrels,
    experiments,
    best,
  };
}

/** One experiment's report (CLI `metrics`); an unknown id is a usage error. */
export async function singleExperimentReport(
  db: Db,
  id: string,
  prices: Record<string, Price>,
): Promise<ExperimentReport & { labels: LabelsInfo; needsAnnotation: number }> {
  const e = await getExperiment(db, id);
  if (!e) throw new JuryError("usage", `No experiment "${id}" (jury memory metrics <experiment-id>)`);
  const labels = await labelsInfo(db, e.collection);
  const r = await experimentReport(db, e, await getQrels(db, e.collection), labels.convention, prices);
  return {
    ...r,
    labels,
    needsAnnotation: (await listStudyQueries(db, e.collection)).filter((q) => !q.labelled).length,
  };
}

/**
 * A collection the command can work on: it must hold memories. An unknown one is a usage error that
 * names the collections there are (a missing --collection otherwise ran on an empty "default").
 */
export async function requireCollection(
  db: Db,
  collection: string,
  opts: { needQueries?: boolean; resolved?: ResolvedCollection } = {},
): Promise<void> {
  if ((await countMemories(db, collection)) > 0) {
    if (opts.needQueries && (await listStudyQueries(db, collection)).length === 0)
      throw new JuryError(
        "usage",
        `collection "${collection}" has no study queries: import a study (jury memory import-study) or a BEIR collection (jury memory import-beir)`,
      );
    return;
  }
  const known = (await listStudies(db)).map((s) => s.collection);
  const there = known.length ? `there are: ${known.join(", ")}` : "none imported yet";
  const r = opts.resolved;
  if (!r || r.from === "flag")
    throw new JuryError("usage", `--collection ${JSON.stringify(collection)}: no such collection (${there})`);
  throw new JuryError(
    "usage",
    `collection ${JSON.stringify(collection)}, chosen as ${resolutionReason(r)}: no such collection (${there}). Give --collection <name>, set JURY_MEMORY_COLLECTION, or use a study configuration for the hook (it promotes its collection)`,
  );
}
