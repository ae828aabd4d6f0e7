/** Runs once when the server starts: migrate, then mark runs a dead process left "running" as interrupted. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getDb } = await import("./db/client");
    const { recoverRuns } = await import("./lib/runs/background");
    recoverRuns(getDb());
  }
}
