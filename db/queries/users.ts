import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import { all, one, query, tx, write } from "../op";
import type { UserRole } from "../schema";

// Users, their sign-in sessions and the audit log. Tokens and session ids arrive here already hashed
// (lib/auth): nothing in this file ever sees one in clear.

/** Whether the store has any user: with none (and no access token), the dashboard is one person's. */
export const anyUsers = query(function* (db) {
  const { users } = db.tables;
  return (yield* one(db.select({ id: users.id }).from(users).limit(1))) !== undefined;
});

export const getUserById = query(function* (db, id: string) {
  const { users } = db.tables;
  return yield* one(db.select().from(users).where(eq(users.id, id)));
});

export const getUserByName = query(function* (db, name: string) {
  const { users } = db.tables;
  return yield* one(db.select().from(users).where(eq(users.name, name)));
});

/** Every user, without their token hash, in the order they were added. */
export const listUsers = query(function* (db) {
  const { users } = db.tables;
  return yield* all(
    db
      .select({
        id: users.id,
        name: users.name,
        role: users.role,
        createdBy: users.createdBy,
        createdAt: users.createdAt,
        rotatedAt: users.rotatedAt,
      })
      .from(users)
      .orderBy(asc(users.createdAt), asc(users.name)),
  );
});

export type AuditInput = {
  actor: string;
  action: string;
  target?: string | null;
  detail?: Record<string, unknown>;
};

/** Appends an entry to the audit log (never updated or deleted). */
export const appendAudit = query(function* (db, entry: AuditInput, at: Date = new Date()) {
  const { auditLog } = db.tables;
  yield* write(
    db.insert(auditLog).values({
      at,
      actor: entry.actor,
      action: entry.action,
      target: entry.target ?? null,
      detail: entry.detail ?? null,
    }),
  );
});

/** The audit log, newest first; `before` pages back by id. */
export const listAudit = query(function* (
  db,
  { limit = 200, before }: { limit?: number; before?: number } = {},
) {
  const { auditLog } = db.tables;
  return yield* all(
    db
      .select()
      .from(auditLog)
      .where(before === undefined ? undefined : lt(auditLog.id, before))
      .orderBy(desc(auditLog.id))
      .limit(limit),
  );
});

/**
 * Adds a user (the name is unique: false when taken) and records it in the audit log. The unique
 * index decides, not a read before the insert: two adds of one name racing on PostgreSQL would both
 * read nothing, and the second would fail with the driver's duplicate-key error.
 */
export const insertUser = query(function* (
  db,
  user: { id: string; name: string; role: UserRole; tokenHash: string },
  by: string,
) {
  return yield* tx(db, function* (t) {
    const { users } = t.tables;
    const at = new Date();
    const added = yield* one(
      t
        .insert(users)
        .values({ ...user, createdBy: by, createdAt: at })
        .onConflictDoNothing({ target: users.name })
        .returning({ id: users.id }),
    );
    if (!added) return false;
    yield* appendAudit.body(
      t,
      { actor: by, action: "user.add", target: user.name, detail: { role: user.role } },
      at,
    );
    return true;
  });
});

/** Removes a user and their sessions (their token and cookie stop working at once); false: no such user. */
export const deleteUser = query(function* (db, name: string, by: string) {
  const { users } = db.tables;
  return yield* tx(db, function* (t) {
    const user = yield* one(t.select().from(users).where(eq(users.name, name)));
    if (!user) return false;
    yield* write(t.delete(t.tables.sessions).where(eq(t.tables.sessions.userId, user.id)));
    yield* write(t.delete(users).where(eq(users.id, user.id)));
    yield* appendAudit.body(t, {
      actor: by,
      action: "user.remove",
      target: name,
      detail: { role: user.role },
    });
    return true;
  });
});

/** Gives a user a new token hash and ends their sessions; false: no such user. */
export const replaceUserToken = query(function* (db, name: string, tokenHash: string, by: string) {
  const { users, sessions } = db.tables;
  return yield* tx(db, function* (t) {
    const user = yield* one(t.select({ id: users.id }).from(users).where(eq(users.name, name)));
    if (!user) return false;
    const at = new Date();
    yield* write(t.update(users).set({ tokenHash, rotatedAt: at }).where(eq(users.id, user.id)));
    yield* write(t.delete(sessions).where(eq(sessions.userId, user.id)));
    yield* appendAudit.body(t, { actor: by, action: "user.rotate", target: name }, at);
    return true;
  });
});

/** Changes a user's role; false: no such user. */
export const setUserRole = query(function* (db, name: string, role: UserRole, by: string) {
  const { users } = db.tables;
  return yield* tx(db, function* (t) {
    const user = yield* one(t.select().from(users).where(eq(users.name, name)));
    if (!user) return false;
    yield* write(t.update(users).set({ role }).where(eq(users.id, user.id)));
    yield* appendAudit.body(t, {
      actor: by,
      action: "user.role",
      target: name,
      detail: { from: user.role, to: role },
    });
    return true;
  });
});

export const insertSession = query(function* (
  db,
  session: { idHash: string; userId: string; createdAt: Date; expiresAt: Date },
) {
  const { sessions } = db.tables;
  yield* write(db.delete(sessions).where(lt(sessions.expiresAt, session.createdAt)));
  yield* write(db.insert(sessions).values(session));
});

/** The user a live session belongs to, or undefined (no such session, expired, or its user removed). */
export const getSessionUser = query(function* (db, idHash: string, now: Date = new Date()) {
  const { sessions, users } = db.tables;
  return yield* one(
    db
      .select({ id: users.id, name: users.name, role: users.role })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now))),
  );
});

export const deleteSession = query(function* (db, idHash: string) {
  const { sessions } = db.tables;
  yield* write(db.delete(sessions).where(eq(sessions.idHash, idHash)));
});

/** How many users hold each role (for `jury users list` and the settings page). */
export const countUsersByRole = query(function* (db) {
  const { users } = db.tables;
  return yield* all(
    db
      .select({ role: users.role, n: sql<number>`cast(count(*) as integer)` })
      .from(users)
      .groupBy(users.role),
  );
});
