import path from "node:path";
import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { listUsers } from "@/db/queries/users";
import { tempDir } from "../testing/fixtures";
import { runJurySync } from "../testing/run-jury";

const fresh = () => path.join(tempDir(), "u.db");
const jury = (db: string, ...args: string[]) =>
  runJurySync(["users", ...args], { env: { JURY_DB: db, JURY_ACCESS_TOKEN: "" } });
const roles = async (db: string) =>
  Object.fromEntries((await listUsers(createDb(db))).map((u) => [u.name, u.role]));

describe("jury users: the last admin", () => {
  it("removing or demoting the last admin while others remain is refused and changes nothing; --force does it", async () => {
    const db = fresh();
    expect(jury(db, "add", "ada", "--role", "admin").code).toBe(0);
    expect(jury(db, "add", "bob", "--role", "annotator").code).toBe(0);

    const rm = jury(db, "remove", "ada");
    expect(rm.code).toBe(2);
    expect(rm.stderr).toContain("ada is the last admin");
    const demote = jury(db, "role", "ada", "viewer");
    expect(demote.code).toBe(2);
    expect(demote.stderr).toContain("ada is the last admin");
    expect(await roles(db)).toEqual({ ada: "admin", bob: "annotator" });

    // with a second admin, the first may go
    expect(jury(db, "role", "bob", "admin").code).toBe(0);
    expect(jury(db, "role", "ada", "viewer").code).toBe(0);
    expect(await roles(db)).toEqual({ ada: "viewer", bob: "admin" });

    const forced = jury(db, "remove", "bob", "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect(await roles(db)).toEqual({ ada: "viewer" });
  });

  it("removing the last user says the dashboard is open again (no access token set)", () => {
    const db = fresh();
    expect(jury(db, "add", "ada", "--role", "admin").code).toBe(0);
    const rm = jury(db, "remove", "ada");
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stderr).toContain("No users are left");
  });
});
