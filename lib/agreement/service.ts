/**
 * What the CLI and the dashboard call: read and validate an import's files, store the set in one
 * transaction, and compute the figures of a set or of a labelled run.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "@/db/client";
import {
  getAgreementItems,
  getAgreementJudgments,
  getAgreementReport,
  getAgreementSet,
  insertAgreementSet,
  putAgreementReport,
  runAgreementStamp,
  SET_STAMP,
} from "@/db/queries/agreement";
import { listVerdictLabels } from "@/db/queries/labels";
import { getRunById, getRunCases, getRunResults, getRunSamples } from "@/db/queries/runs";
import { errorMessage, JuryError } from "../errors";
import { readUtf8File } from "../read-text";
import type { BootstrapOptions } from "../stats/bootstrap";
import {
  type ImportFile,
  type ImportProblem,
  type JsonlOptions,
  type LlmbarOptions,
  type ParsedImport,
  parseJsonlImport,
  parseLlmbarImport,
  parseTrecImport,
  type TrecOptions,
  throwIfProblems,
} from "./imports";
import { type SetReport, setReport } from "./report";
import { type RunAgreement, runAgreement } from "./run-agreement";

/** Reads every file first: a file that cannot be read is a problem like any other, named. */
export function readImportFiles(paths: readonly string[]): ImportFile[] {
  const problems: ImportProblem[] = [];
  const files = paths.map((p) => {
    try {
      return { name: p, text: readUtf8File(p) };
    } catch (err) {
      problems.push({
        file: p,
        line: null,
        field: "(file)",
        message: errorMessage(err).replace(`${p}: `, ""),
      });
      return { name: p, text: "" };
    }
  });
  throwIfProblems(problems);
  return files;
}

/** Stores a validated import with its report, and returns its id and report. */
export async function storeImport(
  db: Db,
  parsed: ParsedImport,
  bootstrap?: BootstrapOptions,
  createdBy?: string,
): Promise<{ setId: string; report: SetReport }> {
  const setId = `${parsed.kind}-${randomUUID().slice(0, 8)}`;
  await insertAgreementSet(db, { id: setId, ...parsed, createdBy: createdBy ?? null });
  return { setId, report: (await computeSet(db, setId, bootstrap)) as SetReport };
}

/** Computes a set's report from its stored rows and stores it. */
async function computeSet(
  db: Db,
  setId: string,
  bootstrap?: BootstrapOptions,
): Promise<SetReport | undefined> {
  const set = await getAgreementSet(db, setId);
  if (!set) return undefined;
  const items = await getAgreementItems(db, setId);
  const judgments = await getAgreementJudgments(db, setId);
  const start = process.cpuUsage();
  const report = setReport(set, items, judgments, { bootstrap });
  const cpu = process.cpuUsage(start);
  await putAgreementReport(db, {
    subjectId: setId,
    kind: "set",
    stamp: SET_STAMP,
    report: JSON.stringify(report),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    computedAt: new Date(),
  });
  return report;
}

export async function importTrec(db: Db, gold: string, judges: readonly string[], opts: TrecOptions = {}) {
  const [g, ...j] = readImportFiles([gold, ...judges]);
  return await storeImport(db, parseTrecImport(g, j, opts));
}

export async function importLlmbar(
  db: Db,
  dataset: string | null,
  results: readonly string[],
  opts: LlmbarOptions = {},
) {
  const files = readImportFiles(dataset ? [dataset, ...results] : results);
  return await storeImport(
    db,
    dataset ? parseLlmbarImport(files[0], files.slice(1), opts) : parseLlmbarImport(null, files, opts),
  );
}

export async function importJsonl(db: Db, file: string, opts: JsonlOptions = {}) {
  const [f] = readImportFiles([file]);
  return await storeImport(db, parseJsonlImport(f, opts));
}

/**
 * A set's report: the stored one (computed once, at import), or computed now and stored when there
 * is none (sets imported before reports were stored); undefined when there is no such set. With
 * `bootstrap` options the report is computed afresh and not stored.
 */
export async function showSet(
  db: Db,
  setId: string,
  bootstrap?: BootstrapOptions,
): Promise<SetReport | undefined> {
  if (!bootstrap) {
    const stored = await getAgreementReport(db, setId);
    if (stored?.kind === "set" && stored.stamp === SET_STAMP) return JSON.parse(stored.report) as SetReport;
  }
  if (bootstrap) {
    const set = await getAgreementSet(db, setId);
    if (!set) return undefined;
    return setReport(set, await getAgreementItems(db, setId), await getAgreementJudgments(db, setId), {
      bootstrap,
    });
  }
  return await computeSet(db, setId);
}

/** A run's agreement with its labels, or undefined when there is no such run. */
export async function showRunAgreement(
  db: Db,
  runId: string,
  bootstrap?: BootstrapOptions,
): Promise<RunAgreement | undefined> {
  const run = await getRunById(db, { id: runId });
  if (!run) return undefined;
  const stamp = await runAgreementStamp(db, runId);
  if (!bootstrap) {
    const stored = await getAgreementReport(db, runId);
    if (stored?.kind === "run" && stored.stamp === stamp) return JSON.parse(stored.report) as RunAgreement;
  }
  const cases = await getRunCases(db, { runId });
  const results = await getRunResults(db, { runId });
  const samples = await getRunSamples(db, { runId });
  const labels = await listVerdictLabels(db, runId);
  const start = process.cpuUsage();
  const report = runAgreement(runId, cases, results, samples, labels, {
    judges: run.options.judges,
    bootstrap,
  });
  if (!bootstrap) {
    const cpu = process.cpuUsage(start);
    await putAgreementReport(db, {
      subjectId: runId,
      kind: "run",
      stamp,
      report: JSON.stringify(report),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      computedAt: new Date(),
    });
  }
  return report;
}

export type AgreementShown = { kind: "set"; report: SetReport } | { kind: "run"; report: RunAgreement };

/** A set id or a run id: its figures. An id that is neither is a usage error naming it. */
export async function showAgreement(
  db: Db,
  id: string,
  bootstrap?: BootstrapOptions,
): Promise<AgreementShown> {
  const set = await showSet(db, id, bootstrap);
  if (set) return { kind: "set", report: set };
  const run = await showRunAgreement(db, id, bootstrap);
  if (run) return { kind: "run", report: run };
  throw new JuryError(
    "not_found",
    `No import or run with id "${id}" (jury agreement list shows the imports and the labelled runs)`,
  );
}
