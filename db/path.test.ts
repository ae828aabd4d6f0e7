import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";
import { resolveDbPath, userDataDir } from "./path";

describe("the default database: one per-user store, JURY_DB to override", () => {
  const home = "/home/ada";

  it("follows each platform's convention for per-user data", () => {
    expect(userDataDir({}, "linux", home)).toBe("/home/ada/.local/share/jury");
    expect(userDataDir({ XDG_DATA_HOME: "/data/ada" }, "linux", home)).toBe("/data/ada/jury");
    // the XDG Base Directory specification: a relative path is invalid and ignored
    expect(userDataDir({ XDG_DATA_HOME: "rel/share" }, "linux", home)).toBe("/home/ada/.local/share/jury");
    expect(userDataDir({}, "freebsd", home)).toBe("/home/ada/.local/share/jury");
    expect(userDataDir({}, "darwin", "/Users/ada")).toBe("/Users/ada/Library/Application Support/jury");
    expect(userDataDir({ LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local" }, "win32", "C:\\Users\\ada")).toBe(
      "C:\\Users\\ada\\AppData\\Local\\jury",
    );
    expect(userDataDir({}, "win32", "C:\\Users\\ada")).toBe("C:\\Users\\ada\\AppData\\Local\\jury");
  });

  it("JURY_DB wins; else a checkout's existing data/jury.db; else jury.db in the per-user folder", () => {
    const checkout = tempDir("jury-checkout-");
    const opts = { platform: "linux" as const, home, checkout };
    expect(resolveDbPath({}, opts)).toBe("/home/ada/.local/share/jury/jury.db");
    expect(resolveDbPath({ JURY_DB: "/tmp/x.db" }, opts)).toBe("/tmp/x.db");
    // a checkout that kept its database in data/ before the per-user default keeps using it
    fs.mkdirSync(path.join(checkout, "data"));
    fs.writeFileSync(path.join(checkout, "data", "jury.db"), "");
    expect(resolveDbPath({}, opts)).toBe(path.join(checkout, "data", "jury.db"));
    expect(resolveDbPath({ JURY_DB: "/tmp/x.db" }, opts)).toBe("/tmp/x.db");
  });
});
