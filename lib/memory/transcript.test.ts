import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/fixtures";
import { extractRecentContext, messageFromEntry } from "./transcript";

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
