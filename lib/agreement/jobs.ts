/**
 * Imports and reports as jobs (lib/jobs/runner.ts): progress in the job row, cancellable through it,
 * and everything stored in one transaction at the end, so a cancelled or failed import leaves
 * nothing behind. A report is computed once per import, or per change of a run's labels, and
 * stored; pages, `jury agreement show` and exports read the stored one.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "@/db/client";
import {
  type AgreementSetRow,
  getAgreementItems,
  getAgreementJudgments,
  getAgreementReport,
  getAgreementSet,
  putAgreementReport,
  runAgreementStamp,
  SET_STAMP,
} from "@/db/queries/agreement";
import { insertAgreementSetWithReport } from "@/db/queries/agreement-tx";
import { getRunById } from "@/db/queries/runs";
import { type JobContext, runJob } from "../jobs/runner";
import { readUtf8File } from "../read-text";
import type { BootstrapOptions } from "../stats/bootstrap";
import {
  type ImportFile,
  type ImportProblem,
  type ParsedImport,
  parseJsonlImport,
  parseLlmbarImport,
  parseTrecImport,
  throwIfProblems,
} from "./imports";
import type { ImportSpec } from "./job-spec";
import { type SetReport, setReportSteps } from "./report";
import type { AgreementShown } from "./service";

/** Gives the event loop a turn: heartbeats (and with them progress and cancel) get written. */
const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

class Cancelled extends Error {}

const cpuMs = (start: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(start);
  return Math.round((u.user + u.system) / 1000);
};

/** The job id of an import (its set id is known before it starts, so a page can link to it). */
export const importJobId = (setId: string) => `import-${setId}`;
export const reportJobId = (subjectId: string) => `report-${subjectId}`;
export const newSetId = (format: ImportSpec["format"]) => `${format}-${randomUUID().slice(0, 8)}`;

function readFiles(files: readonly { name: string; path: string }[]): ImportFile[] {
  const problems: ImportProblem[] = [];
  const out = files.map((f) => {
    try {
      return { name: f.name, text: readUtf8File(f.path) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      problems.push({
        file: f.name,
        line: null,
        field: "(file)",
        message: message.replace(`${f.path}: `, ""),
      });
      return { name: f.name, text: "" };
    }
  });
  throwIfProblems(problems);
  return out;
}

/** Reads and validates the files of an import spec (any problem refuses the whole import). */
export function parseSpec(spec: ImportSpec): ParsedImport {
  const o = spec.options;
  if (spec.format === "trec") {
    const [gold, ...judges] = readFiles([spec.gold as { name: string; path: string }, ...spec.judges]);
    return parseTrecImport(gold, judges, o);
  }
  if (spec.format === "llmbar") {
    const files = readFiles(spec.gold ? [spec.gold, ...spec.judges] : spec.judges);
    return spec.gold ? parseLlmbarImport(files[0], files.slice(1), o) : parseLlmbarImport(null, files, o);
  }
  const [f] = readFiles(spec.judges);
  return parseJsonlImport(f, o);
}

type Progress = { report?: JobContext["report"]; signal?: AbortSignal };

/** Computes a set's report a judge at a time, yielding between judges; throws Cancelled on abort. */
async function computeSetReport(
  set: AgreementSetRow,
  items: Parameters<typeof setReportSteps>[1],
  judgments: Parameters<typeof setReportSteps>[2],
  p: Progress & { offset?: number; bootstrap?: BootstrapOptions },
): Promise<SetReport> {
  const steps = setReportSteps(set, items, judgments, {
    bootstrap: p.bootstrap,
    onProgress: (done, total) => p.report?.({ done: (p.offset ?? 0) + done, total: (p.offset ?? 0) + total }),
  });
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await yieldTurn();
    if (p.signal?.aborted) throw new Cancelled();
  }
}

/**
 * An import's work: read and validate the files, compute the report, store set and report together.
 * Progress: one step per file read, then one per judge.
 */
export async function importWork(
  db: Db,
  spec: ImportSpec,
  p: Progress & { bootstrap?: BootstrapOptions } = {},
): Promise<{ setId: string; report: SetReport }> {
  const files = spec.judges.length + (spec.gold ? 1 : 0);
  p.report?.({ done: 0, total: files + 1 });
  await yieldTurn();
  const parsed = parseSpec(spec);
  if (p.signal?.aborted) throw new Cancelled();
  const judges = new Set(parsed.judgments.map((j) => j.judge)).size;
  p.report?.({ done: files, total: files + judges });
  const start = process.cpuUsage();
  const set: AgreementSetRow = {
    id: spec.setId,
    kind: parsed.kind,
    name: parsed.name,
    options: parsed.options,
    createdAt: new Date(),
  };
  const report = await computeSetReport(set, parsed.items, parsed.judgments, { ...p, offset: files });
  await insertAgreementSetWithReport(
    db,
    { id: spec.setId, ...parsed, createdBy: spec.createdBy ?? null },
    set.createdAt,
    {
      subjectId: spec.setId,
      kind: "set",
      stamp: SET_STAMP,
      report: JSON.stringify(report),
      cpuMs: cpuMs(start),
      computedAt: new Date(),
    },
  );
  return { setId: spec.setId, report };
}

/** Runs an import as a job: the job row carries its progress, its cancel and its outcome. */
export async function runImportJob(
  db: Db,
  spec: ImportSpec,
  opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ setId: string; report: SetReport }> {
  let result: { setId: string; report: SetReport } | undefined;
  let failure: unknown;
  const outcome = await runJob(
    db,
    { id: importJobId(spec.setId), kind: "agreement" },
    async (ctx) => {
      try {
        result = await importWork(db, spec, {
          signal: ctx.signal,
          report: (x) => {
            ctx.report(x);
            if (x.done !== undefined && x.total !== undefined) opts.onProgress?.(x.done, x.total);
          },
        });
        return { status: "done" };
      } catch (err) {
        if (err instanceof Cancelled) return { status: "cancelled", error: "Cancelled: nothing stored" };
        failure = err;
        return { status: "failed", error: err instanceof Error ? err.message : String(err) };
      }
    },
    { signal: opts.signal },
  );
  if (failure) throw failure;
  if (!result) throw new Cancelled(outcome.error ?? "Cancelled: nothing stored");
  return result;
}

/** The stored report of an import or run when it is current; undefined when missing or stale. */
export async function storedReport(db: Db, id: string): Promise<AgreementShown | undefined> {
  const r = await getAgreementReport(db, id);
  if (!r) return undefined;
  const stamp = r.kind === "set" ? SET_STAMP : await runAgreementStamp(db, id);
  if (r.stamp !== stamp) return undefined;
  return { kind: r.kind, report: JSON.parse(r.report) } as AgreementShown;
}

/** Computes and stores the report of an import or a run (with progress and cancel); undefined: no such id. */
export async function reportWork(
  db: Db,
  id: string,
  p: Progress & { bootstrap?: BootstrapOptions } = {},
): Promise<AgreementShown | undefined> {
  const start = process.cpuUsage();
  const set = await getAgreementSet(db, id);
  let shown: AgreementShown;
  let stamp: string;
  if (set) {
    const report = await computeSetReport(
      set,
      await getAgreementItems(db, id),
      await getAgreementJudgments(db, id),
      p,
    );
    shown = { kind: "set", report };
    stamp = SET_STAMP;
  } else {
    stamp = await runAgreementStamp(db, id);
    const { showRunAgreement } = await import("./service");
    const run = await showRunAgreement(db, id, p.bootstrap);
    if (!run) return undefined;
    shown = { kind: "run", report: run };
  }
  await putAgreementReport(db, {
    subjectId: id,
    kind: shown.kind,
    stamp,
    report: JSON.stringify(shown.report),
    cpuMs: cpuMs(start),
    computedAt: new Date(),
  });
  return shown;
}

/** The report of an id: the stored one when current, else computed now as a job (and stored). */
export async function currentReport(
  db: Db,
  id: string,
  opts: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<AgreementShown | undefined> {
  const stored = await storedReport(db, id);
  if (stored) return stored;
  if (!(await getAgreementSet(db, id)) && !(await getRunById(db, { id }))) return undefined;
  let shown: AgreementShown | undefined;
  const outcome = await runJob(
    db,
    { id: reportJobId(id), kind: "agreement" },
    async (ctx) => {
      try {
        shown = await reportWork(db, id, {
          signal: ctx.signal,
          report: (x) => {
            ctx.report(x);
            if (x.done !== undefined && x.total !== undefined) opts.onProgress?.(x.done, x.total);
          },
        });
        return { status: "done" };
      } catch (err) {
        if (err instanceof Cancelled) return { status: "cancelled", error: "Cancelled" };
        throw err;
      }
    },
    { signal: opts.signal },
  );
  if (outcome.status === "failed") throw new Error(outcome.error ?? "the report failed");
  return shown;
}
