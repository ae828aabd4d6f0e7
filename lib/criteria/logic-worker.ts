// The inside of the criteria worker thread (see worker-pool.ts): runs one deterministic criterion at a
// time, away from the thread that serves pages and writes the run. Bundled by scripts/build-cli.mjs.
import v8 from "node:v8";
import { parentPort } from "node:worker_threads";
import { parseJsonLoose } from "../judging/parse-json";
import type { CaseInput, DeterministicFn } from "./definition";

/** What the pool sends: which exported function of which criterion, and its case and params. */
export type LogicRequest = {
  id: number;
  criterionId: string;
  fn: string;
  output: string;
  input: CaseInput;
  params: Record<string, unknown>;
};

export type LogicReply =
  | { type: "ready" }
  | { type: "result"; id: number; score: number; details: string }
  | { type: "error"; id: number; message: string };

/**
 * Answers LogicRequests with the functions in `modules` (criterion id → logic.ts exports). A regex
 * that backtracks catastrophically falls back to V8's linear-time engine, where V8 has it (Node 20:
 * regexes without the i, u or d flag); anything else slow is stopped by the pool's time limit.
 */
export function serveLogic(modules: Record<string, Record<string, unknown>>): void {
  const port = parentPort;
  if (!port) throw new Error("serveLogic runs inside a worker thread");
  v8.setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
  port.on("message", (m: LogicRequest) => {
    let reply: LogicReply;
    try {
      const fn = modules[m.criterionId]?.[m.fn];
      if (typeof fn !== "function")
        throw new Error(
          `"${m.fn}" is not exported by ${m.criterionId}/logic.ts in the criteria worker bundle (rebuild it: npm run build:cli)`,
        );
      const r = (fn as DeterministicFn)(
        { output: m.output, parsed: parseJsonLoose(m.output), input: m.input },
        m.params,
      );
      reply = { type: "result", id: m.id, score: r.score, details: r.details };
    } catch (err) {
      reply = { type: "error", id: m.id, message: err instanceof Error ? err.message : String(err) };
    }
    try {
      port.postMessage(reply);
    } catch (err) {
      // details that cannot be copied to the other thread (a function, a symbol…)
      port.postMessage({
        type: "error",
        id: m.id,
        message: `its result cannot be sent back: ${err instanceof Error ? err.message : String(err)}`,
      } satisfies LogicReply);
    }
  });
  port.postMessage({ type: "ready" } satisfies LogicReply);
}
