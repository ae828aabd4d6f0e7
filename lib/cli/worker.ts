import { getDb } from "@/db/client";
import { runsWithFreeTasks } from "@/db/queries/claims";
import { getRunById } from "@/db/queries/runs";
import { loadProjectCriteria } from "../criteria/load";
import { readEnv } from "../env/registry";
import { errorMessage, isJuryError } from "../errors";
import { executeRun } from "../runs/execute-run";
import { readSettings } from "../settings/store";
import { type CommandSpec, flag, formatHelp, int, parseCommand } from "./args";

export const WORKER_COMMAND: CommandSpec = {
  name: "worker",
  summary:
    "Works the store's runs beside the processes that started them: claims their free tasks (a run's concurrency limits hold over every worker), takes over a run whose owner died, and looks for new work every JURY_CLAIM_POLL_MS. Stops on Ctrl-C or SIGTERM, giving its unfinished tasks back. Start several, on several machines sharing a PostgreSQL store (JURY_DATABASE_URL), to share the calls of big runs.",
  options: {
    once: flag("stop when no run has a free task (instead of waiting for more)"),
    "max-runs": int("<n>", 1, 1_000_000, "stop after working this many runs"),
  },
};

/** `jury worker`: exit 0 when stopped or out of work (--once), 3 when the store fails. */
export async function workerCommand(args: string[]): Promise<number> {
  const { values, help } = parseCommand(WORKER_COMMAND, args);
  if (help) {
    process.stdout.write(formatHelp(WORKER_COMMAND));
    return 0;
  }
  const db = getDb();
  const registry = loadProjectCriteria();
  const controller = new AbortController();
  const stop = () => controller.abort(new Error("stopped"));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const poll = readEnv("JURY_CLAIM_POLL_MS");
  const maxRuns = (values["max-runs"] as number | undefined) ?? Number.POSITIVE_INFINITY;
  let worked = 0;
  process.stderr.write(`jury worker: pid ${process.pid}, looking for runs every ${poll} ms\n`);
  try {
    while (!controller.signal.aborted && worked < maxRuns) {
      const ids = await runsWithFreeTasks(db, { now: new Date(), limit: 20 });
      let did = false;
      for (const id of ids) {
        if (controller.signal.aborted || worked >= maxRuns) break;
        const run = await getRunById(db, { id });
        if (!run || run.options.batch === true) continue; // a batched run is its owner's alone
        try {
          const status = await executeRun(db, id, {
            settings: await readSettings(db),
            registry,
            signal: controller.signal,
            workerKind: "worker",
            onWarning: (line) => process.stderr.write(`jury worker: provider warning: ${line}\n`),
          });
          process.stderr.write(`jury worker: run ${id}: ${status}\n`);
          worked++;
          did = true;
        } catch (err) {
          // another process's run that cannot be joined (a batched run) is not this worker's failure
          if (isJuryError(err) && err.code.startsWith("busy")) continue;
          process.stderr.write(`jury worker: run ${id}: ${errorMessage(err)}\n`);
        }
      }
      if (did) continue;
      if (values.once) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, poll);
        controller.signal.addEventListener("abort", () => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  process.stderr.write(`jury worker: stopped after ${worked} run${worked === 1 ? "" : "s"}\n`);
  return 0;
}
