import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveDbPath } from "@/db/path";
import {
  defaultMigrationsFolder,
  migrationsUpToDate,
  nativeBindingPath,
  openSqlite,
  type SqlDb,
} from "@/db/sqlite";
import type { RetrieveInput } from "../memory/retrieve";
import { decodeUtf8 } from "../read-text";
import { redactSecrets } from "../redact";
import { judgeOffBlock } from "../settings/memory-judge-defaults";

/**
 * `jury memory retrieve`: Claude Code's UserPromptSubmit hook. Reads the hook JSON on stdin,
 * prints the <memory-context> block (nothing when no memory qualifies), and always exits 0.
 * Errors never reach the user's context: they go to the log file.
 *
 * A process starts for every prompt, so this file is its own small CommonJS bundle (dist/hook.cjs): with the
 * judge off it loads neither zod, drizzle nor the AI SDK. They load only when needed: the judge on,
 * migrations to apply, or a stored memory-judge block the quick check does not accept.
 */

const HOOK_FIELDS = ["prompt", "user_prompt", "cwd", "transcript_path", "session_id"] as const;
type HookInput = Partial<Record<(typeof HOOK_FIELDS)[number], string>>;

const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** The hook input's fields, or the problems with it in the words a user can act on. */
export function parseHookInput(
  json: unknown,
): { ok: true; data: HookInput } | { ok: false; problems: string[] } {
  if (kindOf(json) !== "object")
    return { ok: false, problems: [`expected object, received ${kindOf(json)}`] };
  const o = json as Record<string, unknown>;
  const problems: string[] = [];
  const data: HookInput = {};
  for (const k of HOOK_FIELDS) {
    if (o[k] === undefined) continue;
    if (typeof o[k] === "string") data[k] = o[k];
    else problems.push(`${k}: expected string, received ${kindOf(o[k])}`);
  }
  return problems.length ? { ok: false, problems } : { ok: true, data };
}

const MAX_STDIN = 1024 * 1024;
/** Claude Code's default hook timeout is 60 s and seed 000 sets 15 s: stop well before either. */
const HARD_DEADLINE_MS = Number(process.env.JURY_HOOK_DEADLINE_MS) || 9_000;

export function hookLogFile(): string {
  return process.env.JURY_HOOK_LOG ?? path.join(path.dirname(path.resolve(resolveDbPath())), "jury-hook.log");
}

export function logHookError(message: string): void {
  try {
    fs.mkdirSync(path.dirname(hookLogFile()), { recursive: true });
    const line = redactSecrets(message).replace(/\s+/g, " ").slice(0, 2000);
    fs.appendFileSync(hookLogFile(), `${new Date().toISOString()} memory retrieve: ${line}\n`);
  } catch {
    // nowhere left to report; staying silent beats breaking the user's prompt
  }
}

/**
 * stdin to its end, read synchronously, as hooks do (Claude Code writes the JSON and closes it).
 * process.stdin would cost about 4 ms on every prompt (it loads net and builds a stream). A terminal
 * or /dev/null gives nothing to read; a non-blocking descriptor with no data yet (EAGAIN) falls
 * back to the stream. The hard deadline covers what comes after: a blocking read holds the thread.
 */
function readStdin(): Promise<string> {
  if (fs.fstatSync(0).isCharacterDevice()) return Promise.resolve("");
  const buf = Buffer.allocUnsafe(MAX_STDIN + 1);
  let size = 0;
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buf, size, buf.length - size, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EOF") break;
      if (code === "EAGAIN") return readStdinStream(Buffer.from(buf.subarray(0, size)));
      throw err;
    }
    if (n === 0) break;
    size += n;
    if (size > MAX_STDIN) return Promise.reject(new Error(`stdin is over ${MAX_STDIN} bytes`));
  }
  return Promise.resolve(decodeUtf8(buf.subarray(0, size), "stdin"));
}

function readStdinStream(start: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [start];
    let size = start.length;
    process.stdin.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_STDIN) {
        process.stdin.destroy();
        reject(new Error(`stdin is over ${MAX_STDIN} bytes`));
      } else chunks.push(c);
    });
    process.stdin.on("error", reject);
    process.stdin.on("end", () => {
      try {
        resolve(decodeUtf8(Buffer.concat(chunks, size), "stdin"));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * Written synchronously (process.stdout would build a stream, and bin/jury.cjs leaves without
 * flushing streams); a full non-blocking pipe is retried for up to 2 s.
 */
function writeStdout(text: string): void {
  if (!text) return;
  const buf = Buffer.from(text);
  const giveUp = Date.now() + 2_000;
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || Date.now() > giveUp) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/** `jury memory retrieve [--collection <name>]`, the hook bundle's entry (see bin/jury.cjs). */
export function runHook(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { collection: { type: "string" } }, strict: false });
  const collection =
    typeof values.collection === "string"
      ? values.collection
      : (process.env.JURY_MEMORY_COLLECTION ?? "default");
  return memoryRetrieveHook(collection);
}

export async function memoryRetrieveHook(collection: string): Promise<number> {
  const deadline = setTimeout(() => {
    logHookError(`gave up after ${HARD_DEADLINE_MS} ms`);
    process.exit(0);
  }, HARD_DEADLINE_MS);
  deadline.unref();
  try {
    const raw = await readStdin();
    if (!raw.trim()) {
      logHookError("stdin is empty (or a terminal): expected Claude Code's UserPromptSubmit JSON");
      return 0;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      logHookError(`stdin is not JSON: ${JSON.stringify(raw.slice(0, 100))}`);
      return 0;
    }
    const parsed = parseHookInput(json);
    if (!parsed.ok) {
      logHookError(`unexpected hook input: ${parsed.problems.join("; ")}`);
      return 0;
    }
    const prompt = parsed.data.prompt ?? parsed.data.user_prompt ?? "";
    if (!prompt.trim()) return 0;
    const [{ retrieveMemories }, { formatMemoryContext }, { logRetrieval }] = await Promise.all([
      import("../memory/retrieve"),
      import("../memory/format-context"),
      import("@/db/queries/memories"),
    ]);
    const { db, settings } = await openForHook();
    const r = await retrieveMemories({
      db,
      collection,
      prompt,
      mode: "auto",
      settings,
      transcriptPath: parsed.data.transcript_path,
    });
    writeStdout(formatMemoryContext(r.memories));
    if (r.error) logHookError(`${r.path}: ${r.error}`);
    try {
      logRetrieval(db, {
        collection,
        mode: "auto",
        path: r.path,
        candidates: r.candidates,
        returned: r.memories.length,
        latencyMs: r.latencyMs,
        error: r.error,
      });
    } catch (err) {
      logHookError(`could not log the retrieval: ${(err as Error).message}`);
    }
    return 0;
  } catch (err) {
    logHookError(err instanceof Error ? err.message : String(err));
    return 0;
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * The database and the memory-judge settings, the quick way when it applies: migrations already
 * applied and a stored block that turns the judge off and passes its checks. Otherwise the full
 * path (drizzle's migrator, the zod-validated settings), which the judge needs anyway.
 */
async function openForHook(): Promise<{ db: SqlDb; settings: RetrieveInput["settings"] }> {
  const file = resolveDbPath();
  // dist/hook.cjs bundles better-sqlite3's JavaScript and loads its addon from this path; without it,
  // the full path uses the package as installed
  const nativeBinding = nativeBindingPath();
  if (nativeBinding) {
    // memory-mapped reads: a process that starts cold reads the index pages faster (about 1.5 ms)
    const sqlite = openSqlite(file, { nativeBinding, mmapBytes: 256 * 1024 * 1024 });
    if (migrationsUpToDate(sqlite, defaultMigrationsFolder())) {
      const row = sqlite.prepare("select data from settings where id = 1").pluck().get() as
        | string
        | undefined;
      const block = judgeOffBlock(row === undefined ? undefined : JSON.parse(row));
      if (block) return { db: { $client: sqlite }, settings: { memoryJudge: block } };
    }
    sqlite.close();
  }
  const { getDb, readSettings } = await import("./hook-full");
  const db = getDb();
  return { db, settings: readSettings(db) };
}
