// What the memory judge needs at run time (the AI SDK behind getModel, and the judge), in one module
// so the hook's own bundle can leave it out and load it from dist/hook-full.mjs only when the judge runs.
// PostgreSQL's candidates are reached through here too (lib/memory/retrieve.ts): the hook, always on
// SQLite, never needs them, and its bundle stays without drizzle.

export { getModel } from "../providers/get-model";
export { retrieveCandidatesPg } from "./candidates-pg";
export { judgeCandidates, majorityOfSamples } from "./judge";
