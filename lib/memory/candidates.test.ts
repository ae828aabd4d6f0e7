import { expect, it } from "vitest";
import { deleteMemory, upsertMemories } from "@/db/queries/memories";
import { tempDb } from "../testing/fixtures";
import { retrieveCandidates } from "./candidates";

it("keeps the FTS5 index in sync on insert, update and delete", () => {
  const { db } = tempDb();
  const find = (prompt: string, mode: "auto" | "search" = "search") =>
    retrieveCandidates(db, { collection: "c", prompt, mode, poolSize: 10 }).candidates.map((c) => c.memoryId);
  upsertMemories(db, "c", [
    {
      memoryId: "a",
      category: "bug",
      title: "Flaky webhook test",
      tags: ["stripe"],
      body: "race in the handler",
    },
  ]);
  expect(find("webhook")).toEqual(["a"]);
  upsertMemories(db, "c", [
    {
      memoryId: "a",
      category: "bug",
      title: "Flaky payment test",
      tags: ["stripe"],
      body: "race in the handler",
    },
  ]);
  expect(find("webhook")).toEqual([]);
  expect(find("payment")).toEqual(["a"]);
  // auto mode searches title and tags only; search mode adds the body
  expect(find("handler", "auto")).toEqual([]);
  expect(find("handler", "search")).toEqual(["a"]);
  // collections do not leak into each other
  upsertMemories(db, "other", [{ memoryId: "b", category: "bug", title: "payment", tags: [], body: "" }]);
  expect(find("payment")).toEqual(["a"]);
  expect(deleteMemory(db, "c", "a")).toBe(true);
  expect(find("payment")).toEqual([]);
  // stemming: "retries" finds "retry"
  upsertMemories(db, "c", [
    { memoryId: "r", category: "decision", title: "Retry policy", tags: [], body: "" },
  ]);
  expect(find("retries")).toEqual(["r"]);
});
