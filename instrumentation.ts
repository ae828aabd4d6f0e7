/** Runs once when the server starts: open the database so migrations apply before any request. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getDb } = await import("./db/client");
    getDb();
  }
}
