/**
 * Runs once when the server starts: migrate, then recover jobs whose owner died (marked
 * interrupted, resumable), now and every second, so no page ever writes while it renders.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // the store first: on PostgreSQL (JURY_DATABASE_URL) its pool opens and migrations apply here,
    // before the server answers any request
    const { readyDb } = await import("./db/client");
    const db = await readyDb();
    const { startRecoveryLoop } = await import("./lib/jobs/recover");
    startRecoveryLoop(db);
  }
}
