/** The database file: JURY_DB, else data/jury.db. The one place that resolves it (the hook's bundle uses it too). */
export const DEFAULT_DB_PATH = "data/jury.db";

export function resolveDbPath(env: Record<string, string | undefined> = process.env): string {
  return env.JURY_DB || DEFAULT_DB_PATH;
}
