// What every `jury memory` subcommand is handed, and the small helpers they share.
import type { Db } from "@/db/client";
import { readEnv } from "../env/registry";
import { JuryError } from "../errors";
import {
  COLLECTION_NAME,
  projectName,
  type ResolvedCollection,
  resolveCollection,
} from "../memory/collection";
import type { MemoryValues } from "./memory-options";

/**
 * A parsed `jury memory <sub>`: the open database, its own options, its arguments, the collection
 * (and which rule chose it).
 */
export type MemoryContext = {
  db: Db;
  values: MemoryValues;
  positionals: string[];
  collection: string;
  resolved: ResolvedCollection;
};

/**
 * The collection a `jury memory` command reads: `--collection`, else the rule the hook and the skill
 * follow (lib/memory/collection.ts), the project read from the working directory.
 */
export async function resolveCliCollection(
  db: Db,
  flag?: string,
  cwd = process.cwd(),
): Promise<ResolvedCollection> {
  const { readSettings } = await import("../settings/store");
  const { collectionHasMemories } = await import("@/db/queries/memories");
  const env = readEnv("JURY_MEMORY_COLLECTION");
  const promoted = (await readSettings(db)).memoryJudge.collection;
  // the rule asks the store only about the project's collection, and only when no flag or variable
  // names one: asked here (the store may answer asynchronously), handed to the rule as its answer
  const project = flag === undefined && !env?.trim() ? projectName(cwd) : undefined;
  const projectExists =
    project !== undefined && COLLECTION_NAME.test(project) && (await collectionHasMemories(db, project));
  return resolveCollection({
    flag,
    env,
    cwd,
    promoted,
    exists: (name) => name === project && projectExists,
  });
}

/** Prints a line: a string as it is, anything else as indented JSON. */
export const out = (v: unknown) =>
  process.stdout.write(`${typeof v === "string" ? v : JSON.stringify(v, null, 2)}\n`);

/** A whole-number flag within bounds, or a usage error naming it and the value. */
export function wholeNumber(name: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isInteger(n) || n < min || n > max)
    throw new JuryError("usage", `--${name} must be a whole number from ${min} to ${max}, got "${v}"`);
  return n;
}

/** A required argument, or a usage error saying what to give. */
export function need(v: string | undefined, what: string): string {
  if (!v) throw new JuryError("usage", `Give ${what}. See jury memory --help`);
  return v;
}
