import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";
import {
  anyUsers,
  appendAudit,
  countUsersByRole,
  deleteSession,
  deleteUser,
  getSessionUser,
  getUserById,
  getUserByName,
  insertSession,
  insertUser,
  listAudit,
  listUsers,
  replaceUserToken,
  setUserRole,
} from "./users";

const user = (id: string, name: string, role: "viewer" | "annotator" | "admin" = "annotator") => ({
  id: id.padEnd(16, "0"),
  name,
  role,
  tokenHash: `scrypt$16384$8$1$salt-${id}$hash-${id}`,
});

const DAY = 86_400_000;

describe.each(storeKinds())("users on %s", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await freshStore(kind);
  });
  afterEach(() => store.close());

  it("adds users by unique name, lists them without their hash, and records each add", async () => {
    const db = store.db;
    expect(await anyUsers(db)).toBe(false);
    expect(await insertUser(db, user("a", "ayse", "admin"), "root (cli)")).toBe(true);
    expect(await insertUser(db, user("b", "bo"), "ayse")).toBe(true);
    expect(await anyUsers(db)).toBe(true);
    expect(await getUserByName(db, "ayse")).toMatchObject({
      id: user("a", "").id,
      role: "admin",
      createdBy: "root (cli)",
    });
    expect(await getUserById(db, user("b", "").id)).toMatchObject({
      name: "bo",
      tokenHash: user("b", "").tokenHash,
    });
    expect(await getUserByName(db, "AYSE")).toBeUndefined(); // names compare exactly
    const listed = await listUsers(db);
    expect(listed.map((u) => u.name)).toEqual(["ayse", "bo"]);
    expect(listed[0]).not.toHaveProperty("tokenHash");
    expect((await countUsersByRole(db)).sort((x, y) => x.role.localeCompare(y.role))).toEqual([
      { role: "admin", n: 1 },
      { role: "annotator", n: 1 },
    ]);
    expect((await listAudit(db)).map((e) => [e.action, e.target, e.actor, e.detail])).toEqual([
      ["user.add", "bo", "ayse", { role: "annotator" }],
      ["user.add", "ayse", "root (cli)", { role: "admin" }],
    ]);
  });

  it("a taken name is a false result, not a driver error, even when two adds race", async () => {
    const db = store.db;
    expect(await insertUser(db, user("a", "ayse"), "t")).toBe(true);
    expect(await insertUser(db, user("b", "ayse"), "t")).toBe(false);
    const raced = await Promise.all([
      insertUser(db, user("c", "cy"), "t"),
      insertUser(db, user("d", "cy"), "t"),
      insertUser(db, user("e", "cy"), "t"),
    ]);
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect((await listUsers(db)).map((u) => u.name)).toEqual(["ayse", "cy"]);
    // only the adds that happened are in the audit log
    expect((await listAudit(db)).map((e) => e.target)).toEqual(["cy", "ayse"]);
  });

  it("sessions: live until they expire; a rotated token or a removed user ends them all", async () => {
    const db = store.db;
    await insertUser(db, user("a", "ayse", "admin"), "t");
    await insertUser(db, user("b", "bo", "viewer"), "t");
    const now = new Date();
    const session = (idHash: string, userId: string, createdAt = now) => ({
      idHash,
      userId: user(userId, "").id,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + 30 * DAY),
    });
    await insertSession(db, session("s-old", "a", new Date(now.getTime() - 40 * DAY)));
    await insertSession(db, session("s-a", "a"));
    await insertSession(db, session("s-a2", "a"));
    await insertSession(db, session("s-b", "b"));
    expect(await getSessionUser(db, "s-a")).toEqual({ id: user("a", "").id, name: "ayse", role: "admin" });
    expect(await getSessionUser(db, "s-old")).toBeUndefined(); // expired (and purged by the next insert)
    expect(await getSessionUser(db, "s-a", new Date(now.getTime() + 31 * DAY))).toBeUndefined();
    expect(await getSessionUser(db, "nope")).toBeUndefined();

    await deleteSession(db, "s-a2");
    expect(await getSessionUser(db, "s-a2")).toBeUndefined();

    expect(await replaceUserToken(db, "ayse", "scrypt$new", "t")).toBe(true);
    expect(await getSessionUser(db, "s-a")).toBeUndefined();
    expect(await getUserByName(db, "ayse")).toMatchObject({
      tokenHash: "scrypt$new",
      rotatedAt: expect.any(Date),
    });
    expect(await getSessionUser(db, "s-b")).toMatchObject({ name: "bo" });

    expect(await deleteUser(db, "bo", "t")).toBe(true);
    expect(await getSessionUser(db, "s-b")).toBeUndefined();
    expect(await getUserByName(db, "bo")).toBeUndefined();
    expect(await deleteUser(db, "bo", "t")).toBe(false);
    expect(await replaceUserToken(db, "bo", "x", "t")).toBe(false);
    expect((await listAudit(db)).map((e) => `${e.action} ${e.target}`).slice(0, 2)).toEqual([
      "user.remove bo",
      "user.rotate ayse",
    ]);
  });

  it("changes a role; an unknown user is false; the audit log pages back by id", async () => {
    const db = store.db;
    await insertUser(db, user("a", "ayse"), "t");
    expect(await setUserRole(db, "ayse", "admin", "root")).toBe(true);
    expect(await getUserByName(db, "ayse")).toMatchObject({ role: "admin" });
    expect(await setUserRole(db, "nobody", "admin", "root")).toBe(false);
    expect((await listAudit(db, { limit: 1 }))[0]).toMatchObject({
      action: "user.role",
      target: "ayse",
      actor: "root",
      detail: { from: "annotator", to: "admin" },
    });
    for (let i = 0; i < 5; i++) await appendAudit(db, { actor: "t", action: "settings.save", detail: { i } });
    const page1 = await listAudit(db, { limit: 3 });
    const page2 = await listAudit(db, { limit: 3, before: page1[2].id });
    expect([...page1, ...page2].map((e) => e.detail?.i ?? e.action)).toEqual([4, 3, 2, 1, 0, "user.role"]);
    expect(page2[0].target).toBeNull();
  });
});
