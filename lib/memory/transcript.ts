import fs from "node:fs";

/** How much of a transcript's end is read (bounded: transcripts grow to many megabytes). */
export const TAIL_BYTES = 512 * 1024;
const PER_MESSAGE_CHARS = 200;

type Block = { type?: string; text?: string };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  // Only what a person typed or the assistant wrote: text blocks, never tool results or thinking.
  return (content as Block[])
    .filter((b) => b && typeof b === "object" && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join(" ")
    .trim();
}

/** One conversation message from a transcript line, in either shape, or null when it is not one. */
export function messageFromEntry(entry: unknown): { role: "user" | "assistant"; text: string } | null {
  if (!entry || typeof entry !== "object") return null;
  const e = entry as Record<string, unknown>;
  // Claude Code: {type: "user"|"assistant", message: {role, content}}
  if ((e.type === "user" || e.type === "assistant") && e.message && typeof e.message === "object") {
    const text = textOf((e.message as Record<string, unknown>).content);
    return text ? { role: e.type, text } : null;
  }
  // plain: {role: "user"|"human"|"assistant", content}
  if (e.role === "user" || e.role === "human" || e.role === "assistant") {
    const text = textOf(e.content);
    return text ? { role: e.role === "assistant" ? "assistant" : "user", text } : null;
  }
  return null;
}

/**
 * The transcript's last `maxBytes` bytes as text, starting at a line boundary, or why it was not read.
 * Never blocks and never reads more than the bound: the path is checked with stat first (a FIFO,
 * socket, device or folder is refused without being opened), then opened non-blocking, checked
 * again on the open descriptor (a FIFO swapped in between is refused), and only its tail is read.
 */
export function readTranscriptTail(
  transcriptPath: string,
  maxBytes = TAIL_BYTES,
): { text: string } | { skipped: string } {
  let st: fs.Stats;
  try {
    st = fs.statSync(transcriptPath);
  } catch (err) {
    return { skipped: `cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})` };
  }
  if (!st.isFile()) return { skipped: `is ${kindOf(st)}, not a regular file` };
  let fd: number;
  try {
    fd = fs.openSync(transcriptPath, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    return { skipped: `cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})` };
  }
  try {
    const now = fs.fstatSync(fd);
    if (!now.isFile()) return { skipped: `is ${kindOf(now)}, not a regular file` };
    const start = Math.max(0, now.size - maxBytes);
    const buf = Buffer.alloc(now.size - start);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    let text = buf.subarray(0, got).toString("utf8");
    if (start > 0) text = text.slice(text.indexOf("\n") + 1);
    return { text };
  } catch (err) {
    return { skipped: `cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})` };
  } finally {
    fs.closeSync(fd);
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * The conversation context: the last `turns` messages of the transcript, each cut to
 * 200 characters, as "role: text" lines. Reads only the file's tail (readTranscriptTail: never a
 * FIFO or device, never blocking); bad lines are skipped; a missing or unreadable file gives "".
 * `onSkip` hears why a transcript was not read.
 */
export function extractRecentContext(
  transcriptPath: string | undefined,
  turns: number,
  onSkip?: (why: string) => void,
): string {
  if (!transcriptPath || turns <= 0) return "";
  const tail = readTranscriptTail(transcriptPath);
  if ("skipped" in tail) {
    onSkip?.(`transcript ${transcriptPath} ${tail.skipped}`);
    return "";
  }
  const messages: string[] = [];
  for (const line of tail.text.split("\n")) {
    if (!line.trim()) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const m = messageFromEntry(entry);
    if (m) messages.push(`${m.role}: ${m.text.replace(/\s+/g, " ").slice(0, PER_MESSAGE_CHARS)}`);
  }
  return messages.slice(-turns).join("\n");
}
