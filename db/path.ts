import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where the database lives, for every way of running Jury (a checkout, the npm package, the Claude Code
 * plugin): the one place that resolves it (the hook's bundle uses it too).
 *
 * 1. `JURY_DB`, when set.
 * 2. A checkout's `data/jury.db`, when that file exists: where a checkout kept it before the per-user
 *    default, so an existing database keeps working without a move.
 * 3. `jury.db` in the per-user data folder (userDataDir).
 */
export function resolveDbPath(
  env: Record<string, string | undefined> = process.env,
  opts: { platform?: NodeJS.Platform; home?: string; checkout?: string } = {},
): string {
  return sqliteDbPath(env, opts);
}

/** The SQLite file by the rules above, whatever JURY_DATABASE_URL says (the hook's log lives beside it). */
export function sqliteDbPath(
  env: Record<string, string | undefined> = process.env,
  opts: { platform?: NodeJS.Platform; home?: string; checkout?: string } = {},
): string {
  if (env.JURY_DB) return env.JURY_DB;
  const legacy = path.join(opts.checkout ?? installRoot(), "data", "jury.db");
  if (fs.existsSync(legacy)) return legacy;
  return path.join(userDataDir(env, opts.platform, opts.home), "jury.db");
}

/**
 * The per-user data folder, by the platform's convention: `%LOCALAPPDATA%\jury` on Windows,
 * `~/Library/Application Support/jury` on macOS, `$XDG_DATA_HOME/jury` (default `~/.local/share/jury`)
 * elsewhere. A relative XDG_DATA_HOME is ignored, as the XDG Base Directory specification says.
 */
export function userDataDir(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  if (platform === "win32") {
    const local = env.LOCALAPPDATA || path.win32.join(home, "AppData", "Local");
    return path.win32.join(local, "jury");
  }
  if (platform === "darwin") return path.posix.join(home, "Library", "Application Support", "jury");
  const xdg = env.XDG_DATA_HOME;
  return path.posix.join(
    xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, ".local", "share"),
    "jury",
  );
}

/**
 * The folder Jury runs from: the parent of dist/ when this code runs from a bundle there (`jury`, the
 * hook: the installed package, or a checkout), else the working directory (the dashboard's server,
 * which runs from there, and the tests).
 */
export function installRoot(): string {
  try {
    const here = path.dirname(fileURLToPath(import.meta.url));
    if (path.basename(here) === "dist") return path.dirname(here);
  } catch {}
  return process.cwd();
}
