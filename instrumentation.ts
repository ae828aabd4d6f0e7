/**
 * Runs once when the server starts: migrate, then recover jobs whose owner died (marked
 * interrupted, resumable), now and every second, so no page ever writes while it renders.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getDb } = await import("./db/client");
    const { startRecoveryLoop } = await import("./lib/jobs/recover");
    startRecoveryLoop(getDb());
  }
}
