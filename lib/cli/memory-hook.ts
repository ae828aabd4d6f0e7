import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { decodeUtf8 } from "../read-text";
import { redactSecrets } from "../redact";

/**
 * `jury memory retrieve`: Claude Code's UserPromptSubmit hook. Reads the hook JSON on stdin,
 * prints the <memory-context> block (nothing when no memory qualifies), and always exits 0.
 * Errors never reach the user's context: they go to the log file.
 */

const hookInput = z.object({
  prompt: z.string().optional(),
  user_prompt: z.string().optional(),
  cwd: z.string().optional(),
  transcript_path: z.string().optional(),
  session_id: z.string().optional(),
});

const MAX_STDIN = 1024 * 1024;
/** Claude Code's default hook timeout is 60 s and seed 000 sets 15 s: stop well before either. */
const HARD_DEADLINE_MS = 9_000;

export function hookLogFile(): string {
  return (
    process.env.JURY_HOOK_LOG ??
    path.join(path.dirname(path.resolve(process.env.JURY_DB || "data/jury.db")), "jury-hook.log")
  );
}

export function logHookError(message: string): void {
  try {
    fs.mkdirSync(path.dirname(hookLogFile()), { recursive: true });
    const line = redactSecrets(message.replace(/\s+/g, " ").slice(0, 2000));
    fs.appendFileSync(hookLogFile(), `${new Date().toISOString()} memory retrieve: ${line}\n`);
  } catch {
    // nowhere left to report; staying silent beats breaking the user's prompt
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    size += (c as Buffer).length;
    if (size > MAX_STDIN) throw new Error(`stdin is over ${MAX_STDIN} bytes`);
    chunks.push(c as Buffer);
  }
  return decodeUtf8(Buffer.concat(chunks), "stdin");
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
      logHookError("stdin is empty: expected Claude Code's UserPromptSubmit JSON");
      return 0;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      logHookError(`stdin is not JSON: ${JSON.stringify(raw.slice(0, 100))}`);
      return 0;
    }
    const parsed = hookInput.safeParse(json);
    if (!parsed.success) {
      logHookError(
        `unexpected hook input: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
      return 0;
    }
    const prompt = parsed.data.prompt ?? parsed.data.user_prompt ?? "";
    if (!prompt.trim()) return 0;
    const [{ getDb }, { readSettings }, { retrieveMemories }, { formatMemoryContext }, { logRetrieval }] =
      await Promise.all([
        import("@/db/client"),
        import("../settings/store"),
        import("../memory/retrieve"),
        import("../memory/format-context"),
        import("@/db/queries/memories"),
      ]);
    const db = getDb();
    const r = await retrieveMemories({
      db,
      collection,
      prompt,
      mode: "auto",
      settings: readSettings(db),
      transcriptPath: parsed.data.transcript_path,
    });
    process.stdout.write(formatMemoryContext(r.memories));
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
