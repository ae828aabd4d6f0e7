import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/fixtures";
import { extractRecentContext, messageFromEntry, readTranscriptTail } from "./transcript";

const FIXTURE = path.resolve(__dirname, "fixtures/claude-code-transcript.jsonl");

describe("conversation context from a transcript", () => {
  it("reads Claude Code's JSONL: typed and written text only, no tool results, thinking or snapshots", () => {
    const ctx = extractRecentContext(FIXTURE, 50);
    const lines = ctx.split("\n");
    expect(lines[0]).toBe("user: The checkout integration tests fail about one run in five. Can you look?");
    expect(lines[1]).toBe("assistant: I'll start by reading the checkout test file.");
    expect(ctx).not.toContain("Likely a race"); // thinking
    expect(ctx).not.toContain("tool_use_id");
    expect(lines.every((l) => /^(user|assistant): /.test(l))).toBe(true);
  });

  it("keeps the last N messages, each cut to 200 characters", () => {
    const all = extractRecentContext(FIXTURE, 50).split("\n");
    expect(extractRecentContext(FIXTURE, 2).split("\n")).toEqual(all.slice(-2));
    const dir = tempDir();
    const file = path.join(dir, "t.jsonl");
    fs.writeFileSync(file, `${JSON.stringify({ role: "user", content: "x".repeat(500) })}\n`);
    expect(extractRecentContext(file, 5)).toBe(`user: ${"x".repeat(200)}`);
  });

  it("reads the plain {role, content} shape, skipping bad lines", () => {
    const file = path.join(tempDir(), "plain.jsonl");
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ role: "human", content: "fix the retry" }),
        "{not json",
        JSON.stringify({
          role: "assistant",
          content: [
            { type: "text", text: "done" },
            { type: "tool_use", name: "Edit" },
          ],
        }),
        JSON.stringify({ role: "system", content: "ignored" }),
      ].join("\n"),
    );
    expect(extractRecentContext(file, 5)).toBe("user: fix the retry\nassistant: done");
  });

  it("gives nothing for a missing file or zero turns", () => {
    expect(extractRecentContext("/nonexistent/x.jsonl", 5)).toBe("");
    expect(extractRecentContext(FIXTURE, 0)).toBe("");
    expect(
      messageFromEntry({ type: "user", message: { content: [{ type: "tool_result", content: "x" }] } }),
    ).toBeNull();
  });
});

describe("reading a transcript never blocks and stays bounded", () => {
  it("a FIFO is refused without being opened (nobody writes to it: opening it would block)", () => {
    const fifo = path.join(tempDir(), "t.jsonl");
    execFileSync("mkfifo", [fifo]);
    expect(readTranscriptTail(fifo)).toEqual({ skipped: "is a FIFO (named pipe), not a regular file" });
    const notes: string[] = [];
    expect(extractRecentContext(fifo, 5, (n) => notes.push(n))).toBe("");
    expect(notes).toEqual([`transcript ${fifo} is a FIFO (named pipe), not a regular file`]);
  });

  it("a folder, a device, a missing file: skipped with the reason", () => {
    expect(readTranscriptTail(tempDir())).toEqual({ skipped: "is a folder, not a regular file" });
    expect(readTranscriptTail("/dev/zero")).toEqual({ skipped: "is a device, not a regular file" });
    expect(readTranscriptTail("/nonexistent/t.jsonl")).toEqual({ skipped: "cannot be read (ENOENT)" });
  });

  it("reads only the tail, from the first whole line", () => {
    const file = path.join(tempDir(), "big.jsonl");
    const line = (i: number) => JSON.stringify({ role: "user", content: `message ${i} ${"x".repeat(80)}` });
    fs.writeFileSync(file, `${Array.from({ length: 2000 }, (_, i) => line(i)).join("\n")}\n`);
    const tail = readTranscriptTail(file, 4096);
    if (!("text" in tail)) throw new Error("not read");
    expect(tail.text.length).toBeLessThanOrEqual(4096);
    expect(tail.text.startsWith('{"role":"user"')).toBe(true);
    expect(tail.text).toContain("message 1999 ");
    expect(tail.text).not.toContain("message 1000 ");
    expect(
      extractRecentContext(file, 2)
        .split("\n")
        .map((l) => l.slice(0, 20)),
    ).toEqual(["user: message 1998 x", "user: message 1999 x"]);
  });
});
