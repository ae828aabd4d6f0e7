import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/fixtures";
import { hookReadsNote, projectName, resolutionReason, resolveCollection } from "./collection";

describe("the project a working directory belongs to", () => {
  it("is the folder holding .git at or above it (a directory, or a worktree's file); outside a repository, the folder itself", () => {
    const root = tempDir();
    const repo = path.join(root, "shop-api");
    fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
    fs.mkdirSync(path.join(repo, "src", "lib"), { recursive: true });
    expect(projectName(repo)).toBe("shop-api");
    expect(projectName(path.join(repo, "src", "lib"))).toBe("shop-api");
    const worktree = path.join(root, "wt-feature");
    fs.mkdirSync(worktree);
    fs.writeFileSync(path.join(worktree, ".git"), "gitdir: /elsewhere/.git/worktrees/wt-feature\n");
    expect(projectName(path.join(worktree))).toBe("wt-feature");
    const plain = path.join(root, "notes");
    fs.mkdirSync(plain);
    expect(projectName(plain)).toBe("notes");
    // a hook input from another machine: read as written
    expect(projectName("/nonexistent-home/dev/billing")).toBe("billing");
  });
});

describe("which collection is read", () => {
  const root = tempDir();
  const cwd = path.join(root, "shop-api");
  fs.mkdirSync(cwd);
  const store =
    (...names: string[]) =>
    (n: string) =>
      names.includes(n);

  it("--collection, then JURY_MEMORY_COLLECTION, then the project's collection, then the promoted one, then default", () => {
    const all = { flag: "f", env: "e", cwd, promoted: "p", exists: store("shop-api", "p", "default") };
    expect(resolveCollection(all)).toEqual({ name: "f", from: "flag", project: "shop-api" });
    expect(resolveCollection({ ...all, flag: undefined })).toMatchObject({ name: "e", from: "env" });
    expect(resolveCollection({ ...all, flag: undefined, env: " " })).toMatchObject({
      name: "shop-api",
      from: "project",
    });
    // the project's collection counts only when the store holds it
    expect(
      resolveCollection({ ...all, flag: undefined, env: undefined, exists: store("p", "default") }),
    ).toMatchObject({ name: "p", from: "promoted" });
    expect(
      resolveCollection({ flag: undefined, env: undefined, cwd, promoted: undefined, exists: store() }),
    ).toEqual({ name: "default", from: "default", project: "shop-api" });
  });

  it("says why it chose each", () => {
    const r = (from: Parameters<typeof resolutionReason>[0]["from"]) =>
      resolutionReason({ name: "x", from, project: "shop-api" });
    expect(r("flag")).toBe("--collection");
    expect(r("env")).toBe("JURY_MEMORY_COLLECTION");
    expect(r("project")).toBe("named after the project shop-api");
    expect(r("promoted")).toBe("the collection promoted in Settings");
    expect(r("default")).toBe(
      "the default: no collection named after the project shop-api and none promoted",
    );
  });

  it("the study page's note: whether the hook reads this collection now, and the exceptions", () => {
    expect(hookReadsNote("shop-api", "shop-api")).toMatchObject({ reads: "shop-api", thisOne: true });
    expect(hookReadsNote("shop-api", "shop-api").text).toMatch(
      /^The hook and the memory-search skill read shop-api \(promoted in Settings\) in every project without a collection of its own name/,
    );
    const other = hookReadsNote("shop-api", undefined);
    expect(other).toMatchObject({ reads: "default", thisOne: false });
    expect(other.text).toMatch(
      /^The hook and the memory-search skill read default \(nothing is promoted\), not shop-api, except in a project named shop-api/,
    );
  });
});
