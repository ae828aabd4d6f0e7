import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readEnv } from "../env/registry";
import { dataBlock } from "../judging/prompt";

/**
 * The transcript analysis reads a coding agent's Claude Code session (one JSON object a line):
 * `user` entries whose content is a string or `tool_result` blocks, `assistant` entries with
 * `thinking`, `text` and `tool_use` blocks. What the agent did is in the tool_use blocks: the files it
 * read and edited and the commands it ran. This reader is the review's own (the memory hook has its
 * own, tuned for a deadline).
 */

/** How much of a transcript's end is read: sessions grow to many megabytes. */
export const TRANSCRIPT_TAIL_BYTES = 8 * 1024 * 1024;
/** The folder Claude Code keeps its sessions in, one sub-folder per project. */
export const CLAUDE_PROJECTS_ENV = "JURY_CLAUDE_PROJECTS_DIR" as const;

export type TranscriptCommand = { command: string; description?: string; result?: string; isError?: boolean };

/** What the agent did, newest first. */
export type TranscriptDigest = {
  file: string;
  /** the project folder the session ran in (its newest `cwd`), when the transcript records one */
  cwd?: string;
  /** what a person typed or the assistant wrote (no tool results, no thinking) */
  conversation: { role: "user" | "assistant"; text: string }[];
  filesRead: string[];
  filesEdited: string[];
  commands: TranscriptCommand[];
  /** other tools, by name, with how often they ran */
  otherTools: Record<string, number>;
  /** the file was longer than the bound: only its end was read */
  truncated: boolean;
};

type Block = Record<string, unknown> & { type?: string };

const READ_TOOLS = new Set(["Read", "NotebookRead"]);
const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);
const SEARCH_TOOLS = new Set(["Grep", "Glob", "LS"]);

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v : undefined;
}

function textOfResult(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((b) =>
        b && typeof b === "object" && typeof (b as Block).text === "string" ? (b as Block).text : "",
      )
      .join("\n");
  return "";
}

/**
 * The end of a transcript (at most `maxBytes`), starting at a line boundary. Only a regular file is
 * read, opened non-blocking (a FIFO put in its place cannot hang the review).
 */
export function readTranscriptText(
  file: string,
  maxBytes = TRANSCRIPT_TAIL_BYTES,
): { text: string; truncated: boolean } {
  const st = fs.statSync(file);
  if (!st.isFile()) throw new Error(`${file} is not a regular file`);
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const fst = fs.fstatSync(fd);
    if (!fst.isFile()) throw new Error(`${file} is not a regular file`);
    const start = Math.max(0, fst.size - maxBytes);
    const buf = Buffer.alloc(fst.size - start);
    let read = 0;
    while (read < buf.length) {
      const n = fs.readSync(fd, buf, read, buf.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    let text = buf.subarray(0, read).toString("utf8");
    if (start > 0) text = text.slice(text.indexOf("\n") + 1); // a cut first line is dropped
    return { text, truncated: start > 0 };
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads a Claude Code transcript into what the agent said and did, newest first. */
export function readTranscript(file: string, maxBytes = TRANSCRIPT_TAIL_BYTES): TranscriptDigest {
  const { text, truncated } = readTranscriptText(file, maxBytes);
  const conversation: TranscriptDigest["conversation"] = [];
  const read: string[] = [];
  const edited: string[] = [];
  const commands: (TranscriptCommand & { id?: string })[] = [];
  const otherTools: Record<string, number> = {};
  const results = new Map<string, { text: string; isError: boolean }>();
  let cwd: string | undefined;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line);
    } catch {
      continue; // a line being written, or not JSON: skipped
    }
    if (!e || typeof e !== "object" || (e.type !== "user" && e.type !== "assistant")) continue;
    if (str(e.cwd)) cwd = e.cwd as string;
    const message = e.message as { content?: unknown } | undefined;
    const content = message?.content;
    const role = e.type as "user" | "assistant";
    if (typeof content === "string") {
      if (content.trim()) conversation.push({ role, text: content.trim() });
      continue;
    }
    if (!Array.isArray(content)) continue;
    const texts: string[] = [];
    for (const b of content as Block[]) {
      if (!b || typeof b !== "object") continue;
      if (b.type === "text" && str(b.text)) texts.push((b.text as string).trim());
      else if (b.type === "tool_result" && typeof b.tool_use_id === "string")
        results.set(b.tool_use_id, { text: textOfResult(b.content), isError: b.is_error === true });
      else if (b.type === "tool_use") {
        const name = String(b.name ?? "");
        const input = (b.input ?? {}) as Record<string, unknown>;
        const file = str(input.file_path) ?? str(input.notebook_path) ?? str(input.path);
        if (READ_TOOLS.has(name) && file) read.push(file);
        else if (EDIT_TOOLS.has(name) && file) edited.push(file);
        else if (name === "Bash" && str(input.command))
          commands.push({
            command: input.command as string,
            description: str(input.description),
            id: typeof b.id === "string" ? b.id : undefined,
          });
        else if (SEARCH_TOOLS.has(name) && str(input.pattern))
          otherTools[`${name} ${input.pattern}`] = (otherTools[`${name} ${input.pattern}`] ?? 0) + 1;
        else if (name) otherTools[name] = (otherTools[name] ?? 0) + 1;
      }
    }
    if (texts.length) conversation.push({ role, text: texts.join("\n") });
  }
  const newestFirstUnique = (xs: string[]) => [...new Set([...xs].reverse())];
  return {
    file,
    ...(cwd ? { cwd } : {}),
    conversation: conversation.reverse(),
    filesRead: newestFirstUnique(read),
    filesEdited: newestFirstUnique(edited),
    commands: commands.reverse().map(({ id, ...c }) => {
      const r = id ? results.get(id) : undefined;
      return r ? { ...c, result: r.text, isError: r.isError } : c;
    }),
    otherTools,
    truncated,
  };
}

/** Claude Code's folder name for a project: its absolute path with every other character a dash. */
export function claudeProjectFolderName(projectDir: string): string {
  return path.resolve(projectDir).replace(/[^A-Za-z0-9]/g, "-");
}

/** Where Claude Code keeps sessions: the flag, else JURY_CLAUDE_PROJECTS_DIR, else ~/.claude/projects. */
export function claudeProjectsDir(
  flag?: string,
  env: Record<string, string | undefined> = process.env,
): string {
  return flag ?? readEnv(CLAUDE_PROJECTS_ENV, env) ?? path.join(os.homedir(), ".claude", "projects");
}

/**
 * The newest session transcript (by modification time) of a project: `<projects>/<folder>/*.jsonl`,
 * where folder is the project's path as Claude Code names it. Undefined when there is none.
 */
export function findLatestTranscript(projectDir: string, projectsDir: string): string | undefined {
  const dir = path.join(projectsDir, claudeProjectFolderName(projectDir));
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  let best: { file: string; mtime: number } | undefined;
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const file = path.join(dir, name);
    try {
      const st = fs.lstatSync(file);
      if (!st.isFile()) continue;
      if (!best || st.mtimeMs > best.mtime) best = { file, mtime: st.mtimeMs };
    } catch {}
  }
  return best?.file;
}

/** Bounds of what the diagnosis prompt carries from the transcript. */
export const DIGEST_LIMITS = {
  files: 40,
  commands: 25,
  commandChars: 300,
  resultChars: 400,
  messages: 30,
  messageChars: 600,
};

const cut = (s: string, n: number) =>
  s.length > n ? `${s.slice(0, n)}… [${s.length - n} characters cut]` : s;

/** The digest as data blocks for the diagnosis prompt: bounded, newest first. */
export function digestForPrompt(d: TranscriptDigest, limits = DIGEST_LIMITS): string {
  const list = (xs: string[], n: number) =>
    xs.length === 0
      ? "(none)"
      : `${xs.slice(0, n).join("\n")}${xs.length > n ? `\n[… ${xs.length - n} older not shown]` : ""}`;
  const commands = d.commands.slice(0, limits.commands).map((c) => {
    const head = `$ ${cut(c.command, limits.commandChars)}${c.description ? `  # ${c.description}` : ""}`;
    if (c.result === undefined) return head;
    return `${head}\n${c.isError ? "[error] " : ""}${cut(c.result.trim(), limits.resultChars)}`;
  });
  const convo = d.conversation
    .slice(0, limits.messages)
    .map((m) => `${m.role}: ${cut(m.text, limits.messageChars)}`);
  const other = Object.entries(d.otherTools)
    .slice(0, 20)
    .map(([k, n]) => `${k} ×${n}`);
  return [
    `Transcript ${path.basename(d.file)}${d.truncated ? " (only its end was read)" : ""}; every list is newest first.`,
    dataBlock("files_edited", list(d.filesEdited, limits.files)),
    dataBlock("files_read", list(d.filesRead, limits.files)),
    dataBlock(
      "commands_run",
      commands.length
        ? `${commands.join("\n\n")}${d.commands.length > limits.commands ? `\n[… ${d.commands.length - limits.commands} older not shown]` : ""}`
        : "(none)",
    ),
    ...(other.length ? [dataBlock("other_tools", other.join("\n"))] : []),
    dataBlock("conversation", convo.length ? convo.join("\n\n") : "(none)"),
  ].join("\n\n");
}
