import fs from "node:fs";

const TAIL_BYTES = 512 * 1024;
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
 * Seed 000's conversation context: the last `turns` messages of the transcript, each cut to
 * 200 characters, as "role: text" lines. Reads only the file's tail; bad lines are skipped; a
 * missing or unreadable file gives "".
 */
export function extractRecentContext(transcriptPath: string | undefined, turns: number): string {
  if (!transcriptPath || turns <= 0) return "";
  let text: string;
  try {
    const fd = fs.openSync(transcriptPath, "r");
    try {
      const size = fs.fstatSync(fd).size;
      const start = Math.max(0, size - TAIL_BYTES);
      const buf = Buffer.alloc(size - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      text = buf.toString("utf8");
      if (start > 0) text = text.slice(text.indexOf("\n") + 1);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return "";
  }
  const messages: string[] = [];
  for (const line of text.split("\n")) {
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
