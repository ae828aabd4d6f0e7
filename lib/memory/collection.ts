/**
 * Which memory collection the hook, `jury memory` and the memory-search skill read: one rule, in this
 * order (the first that gives a name wins):
 *
 * 1. `--collection <name>`;
 * 2. `JURY_MEMORY_COLLECTION`;
 * 3. a collection named after the project, when the store has one: the project is the folder name of
 *    the git repository around the working directory (the hook's `cwd` from Claude Code, else the
 *    process's), or of that directory itself outside a repository;
 * 4. the collection promoted in Settings (`memoryJudge.collection`, set by "Use for the hook");
 * 5. `default`.
 *
 * Loaded by the hook's small bundle: node:fs and node:path only (no zod, no drizzle).
 */
import fs from "node:fs";
import path from "node:path";

/** A collection's name: what `--collection`, the settings and the dashboard's routes accept. */
export const COLLECTION_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;

export const DEFAULT_COLLECTION = "default";

export type CollectionSource = "flag" | "env" | "project" | "promoted" | "default";

export type ResolvedCollection = {
  name: string;
  from: CollectionSource;
  /** the project's name as the rule saw it (whether or not a collection of that name exists) */
  project?: string;
};

/**
 * The project a working directory belongs to: the name of the folder holding `.git` (a directory, or
 * the file a worktree has) at or above it; outside a repository, the directory's own name. A path that
 * does not exist (a hook input from another machine) is read as written.
 */
export function projectName(cwd: string): string | undefined {
  const start = path.resolve(cwd);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, ".git"))) return path.basename(dir) || undefined;
    if (path.dirname(dir) === dir) break;
  }
  return path.basename(start) || undefined;
}

export type CollectionInputs = {
  /** `--collection` as given */
  flag?: string;
  /** JURY_MEMORY_COLLECTION (blank: unset) */
  env?: string;
  /** the working directory the project is read from */
  cwd?: string;
  /** `memoryJudge.collection` in the settings */
  promoted?: string;
  /** whether the store holds a collection of this name (at least one memory) */
  exists: (name: string) => boolean;
};

/** The collection to read, and which rule chose it. */
export function resolveCollection(i: CollectionInputs): ResolvedCollection {
  const project = i.cwd ? projectName(i.cwd) : undefined;
  const at = (name: string, from: CollectionSource): ResolvedCollection =>
    project === undefined ? { name, from } : { name, from, project };
  if (i.flag !== undefined) return at(i.flag, "flag");
  const env = i.env?.trim();
  if (env) return at(env, "env");
  if (project !== undefined && COLLECTION_NAME.test(project) && i.exists(project))
    return at(project, "project");
  if (i.promoted && COLLECTION_NAME.test(i.promoted)) return at(i.promoted, "promoted");
  return at(DEFAULT_COLLECTION, "default");
}

/** Why the rule chose this collection: "the collection promoted in Settings". */
export function resolutionReason(r: ResolvedCollection): string {
  switch (r.from) {
    case "flag":
      return "--collection";
    case "env":
      return "JURY_MEMORY_COLLECTION";
    case "project":
      return `named after the project ${r.project}`;
    case "promoted":
      return "the collection promoted in Settings";
    default:
      return `the default: no collection named after the project${r.project ? ` ${r.project}` : ""} and none promoted`;
  }
}

/**
 * What the study page of `collection` says the hook and the skill read now, given the collection
 * promoted in Settings: whether it is this one, and the exceptions the rule makes.
 */
export function hookReadsNote(
  collection: string,
  promoted: string | undefined,
): { reads: string; thisOne: boolean; text: string } {
  const reads = promoted ?? DEFAULT_COLLECTION;
  const overrides = "--collection and JURY_MEMORY_COLLECTION override both";
  if (reads === collection)
    return {
      reads,
      thisOne: true,
      text: `The hook and the memory-search skill read ${collection}${promoted ? " (promoted in Settings)" : " (the default)"} in every project without a collection of its own name (a collection named after the project's git folder comes first; ${overrides}).`,
    };
  return {
    reads,
    thisOne: false,
    text: `The hook and the memory-search skill read ${reads}${promoted ? " (promoted in Settings)" : " (nothing is promoted)"}, not ${collection}, except in a project named ${collection} (a collection named after the project's git folder comes first; ${overrides}). "Use for the hook" below makes them read ${collection}.`,
  };
}
