import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The store a spec's server and CLI use. The suite runs on SQLite files (JURY_DB); its PostgreSQL pass
 * (scripts/e2e.mjs, playwright.pg.config.ts) sets E2E_DATABASE_URL to a server, and each SQLite path
 * then stands for a database of its own there (JURY_DATABASE_URL), named after the path.
 */
export function storeEnv(db: string): Record<string, string> {
  const server = process.env.E2E_DATABASE_URL;
  if (!server) return { JURY_DB: db };
  const name = `jury_e2e_${createHash("sha1").update(path.resolve(db)).digest("hex").slice(0, 12)}`;
  const u = new URL(server);
  u.pathname = `/${name}`;
  return { JURY_DB: db, JURY_DATABASE_URL: u.toString() };
}

/** Empties a spec's store: its SQLite folder, and on the PostgreSQL pass its database. */
export function resetStore(db: string): void {
  fs.rmSync(path.dirname(db), { recursive: true, force: true });
  fs.mkdirSync(path.dirname(db), { recursive: true });
  const url = storeEnv(db).JURY_DATABASE_URL;
  if (!url) return;
  const r = spawnSync(process.execPath, ["scripts/pg-reset.mjs", url], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`pg-reset failed: ${r.stderr}`);
}
