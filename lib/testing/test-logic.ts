// Deterministic logic for tests: plain functions with no imports, so the test criteria worker
// (dist/test-criteria-worker.mjs, built from test-criteria-worker.ts) can host them too.
import type { DeterministicFn } from "../criteria/definition";

export const lengthOk: DeterministicFn = (ctx, params) => {
  const max = typeof params.max_chars === "number" ? params.max_chars : 1000;
  return { score: ctx.output.length <= max ? 1 : 0, details: `length=${ctx.output.length}` };
};

/** Never returns: what a buggy criterion does. */
export const loopForever: DeterministicFn = () => {
  for (;;) {}
};

/** Takes `params.ms` of busy CPU, then scores 1. */
export const busyFor: DeterministicFn = (_ctx, params) => {
  const end = Date.now() + Number(params.ms ?? 0);
  while (Date.now() < end) {}
  return { score: 1, details: `busy for ${params.ms} ms` };
};

export const throwsError: DeterministicFn = () => {
  throw new Error("logic exploded");
};

/** Ends its worker thread, as `process.exit()` in a criterion would. */
export const exitsWorker: DeterministicFn = () => {
  process.exit(3);
};

/** The test criteria (folder id → logic.ts exports) the test worker serves. */
export const testLogicModules: Record<string, Record<string, unknown>> = {
  short: { lengthOk },
  forever: { loopForever },
  busy: { busyFor },
  throws: { throwsError },
  exits: { exitsWorker },
};
