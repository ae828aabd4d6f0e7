// The heavy half of the memory hook (drizzle's migrator, zod-validated settings, the AI SDK and the
// judge), bundled apart as dist/hook-full.mjs. The hook's own bundle (dist/hook.mjs) imports it only
// when the judge is on, migrations are pending or the stored settings need the full validation.
export { getDb } from "@/db/client";
export { getModel, judgeCandidates } from "../memory/judge-runtime";
export { readSettings } from "../settings/store";
