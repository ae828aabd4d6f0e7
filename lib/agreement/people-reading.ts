/**
 * Agreement between people on a study and on a labelled run, read from the store: each person's
 * labels from the label history (lib/agreement/people.ts), the judge's from what it decided.
 *
 * - A study: the items are query × memory, relevant (1) or not (0). The judge is the newest finished
 *   configuration with a judge model: a memory among a query's candidates is relevant to it when it
 *   kept the memory.
 * - A run: the items are case × criterion, pass (1) or fail (0); the judge is the run's verdict.
 */
import type { Db } from "@/db/client";
import { getExperimentResults, listExperiments } from "@/db/queries/experiments";
import { listStudyLabelEvents, listVerdictLabelEvents } from "@/db/queries/label-events";
import { getRunResults } from "@/db/queries/runs";
import type { BootstrapOptions } from "../stats/bootstrap";
import { type LabelEvent, type PeopleAgreement, peopleAgreement, peopleLabels } from "./people";

export type PeopleAgreementView = PeopleAgreement & {
  /** what the people are compared with: a configuration's label, "the run's verdict"; null: none */
  judge: string | null;
};

const item = (a: string, b: string) => `${a}\u0000${b}`;

function groupBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) {
    const list = out.get(key(x)) ?? [];
    list.push(x);
    out.set(key(x), list);
  }
  return out;
}

export async function studyPeopleAgreement(
  db: Db,
  collection: string,
  opts: { bootstrap?: BootstrapOptions } = {},
): Promise<PeopleAgreementView> {
  const labels = new Map<string, Map<string, number>>();
  // undo walks one query's history: each query is a scope of its own
  for (const events of groupBy(await listStudyLabelEvents(db, collection), (e) => e.queryId).values())
    peopleLabels(
      events.map((e): LabelEvent => {
        if (e.source === "undo") return { kind: "undo" };
        if (e.memoryId === null) return { kind: "clear" };
        return {
          kind: "set",
          item: item(e.queryId, e.memoryId),
          author: e.author,
          value: e.relevance === null ? null : e.relevance > 0 ? 1 : 0,
        };
      }),
      labels,
    );
  const judged = (await listExperiments(db, collection)).find(
    (e) =>
      (e.status === "done" || e.status === "done_with_failures") &&
      e.config.kind !== "bm25" &&
      Boolean(e.config.model),
  );
  let judge: Map<string, number> | null = null;
  if (judged) {
    judge = new Map();
    for (const r of await getExperimentResults(db, judged.id)) {
      if (r.error) continue;
      const kept = new Set(r.retrieved);
      for (const c of r.candidates) judge.set(item(r.queryId, c.memoryId), kept.has(c.memoryId) ? 1 : 0);
    }
  }
  return { ...peopleAgreement(labels, judge, opts), judge: judged ? judged.label : null };
}

export async function runPeopleAgreement(
  db: Db,
  runId: string,
  opts: { bootstrap?: BootstrapOptions } = {},
): Promise<PeopleAgreementView> {
  // undo walks the whole run's history: one scope
  const labels = peopleLabels(
    (await listVerdictLabelEvents(db, runId)).map(
      (e): LabelEvent =>
        e.source === "undo"
          ? { kind: "undo" }
          : {
              kind: "set",
              item: item(e.caseId, e.criterionId),
              author: e.author,
              value: e.passed === null ? null : e.passed ? 1 : 0,
            },
    ),
  );
  const results = await getRunResults(db, { runId });
  const judge = new Map(results.map((r) => [item(r.caseId, r.criterionId), r.passed ? 1 : 0]));
  return {
    ...peopleAgreement(labels, results.length ? judge : null, opts),
    judge: results.length ? "the run's verdict" : null,
  };
}
