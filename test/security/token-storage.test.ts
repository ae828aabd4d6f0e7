// A personal token is never kept in clear: after users are added (by lib/auth and by `jury users`),
// signed in and used, neither the store's bytes (the SQLite file and its WAL; a pg_dump of the
// PostgreSQL database, or every row of every table when pg_dump is not installed) nor anything
// written to the logs holds a token, its secret or a session id. And the store is read on every
// request: a removed user's token, or a rotated one's old token, is refused (401) at once.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { closeDb, readyDb } from "@/db/client";
import { authenticate, SESSION_COOKIE, signIn } from "@/lib/auth/authenticate";
import { addUser, removeUser, rotateUser } from "@/lib/auth/users";
import { usersCommand } from "@/lib/cli/users";
import { dumpStore } from "@/lib/testing/dump-store";
import { tempDir } from "@/lib/testing/fixtures";
import { emptyPgDatabase, storeKinds } from "@/lib/testing/stores";
import { proxy } from "@/proxy";

const HOST = "127.0.0.1:3000";

/** What the process wrote while `fn` ran: stdout apart (the CLI prints a new token there, once), the rest as logs. */
function capture() {
  const out: string[] = [];
  const logs: string[] = [];
  const text = (chunk: unknown) =>
    typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString();
  const spies = [
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      out.push(text(chunk));
      return true;
    }),
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      logs.push(text(chunk));
      return true;
    }),
    ...(["log", "info", "warn", "error", "debug"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
        logs.push(args.map(String).join(" "));
      }),
    ),
  ];
  const restore = () => {
    for (const s of spies) s.mockRestore();
  };
  return { out, logs, restore };
}

/** A request through proxy.ts, as a script sends it (a bearer token) or a browser (the session cookie). */
async function through(creds: { bearer?: string; session?: string }): Promise<number> {
  const headers = new Headers({ host: HOST, accept: "application/json" });
  if (creds.bearer) headers.set("authorization", `Bearer ${creds.bearer}`);
  if (creds.session) headers.set("cookie", `${SESSION_COOKIE}=${creds.session}`);
  const res = await proxy(new NextRequest(`http://${HOST}/api/progress/run_20260101_deadbeef`, { headers }));
  return res.status;
}

const secretOf = (token: string) => token.split("_").slice(2).join("_");

describe.each(storeKinds())("personal tokens on %s", (kind) => {
  let dir: string;
  let pgUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  let io: ReturnType<typeof capture>;

  beforeAll(async () => {
    delete process.env.JURY_ACCESS_TOKEN;
    delete process.env.PORT;
    delete process.env.JURY_HOST;
    dir = tempDir();
    if (kind === "pg") {
      const database = await emptyPgDatabase();
      pgUrl = database.url;
      process.env.JURY_DATABASE_URL = database.url;
      drop = database.drop;
    } else {
      delete process.env.JURY_DATABASE_URL;
      process.env.JURY_DB = path.join(dir, "jury.db");
    }
    await readyDb();
  }, 120_000);

  afterAll(async () => {
    if (kind === "pg") {
      await closeDb(await readyDb());
      delete process.env.JURY_DATABASE_URL;
      await drop?.();
    }
  });

  beforeEach(() => {
    io = capture();
  });
  afterEach(() => io.restore());

  /** Every byte the store keeps: the SQLite files, or the PostgreSQL database as pg_dump writes it (else its rows). */
  async function storeBytes(): Promise<Buffer> {
    if (kind === "sqlite") {
      const files = fs.readdirSync(dir).filter((f) => f.startsWith("jury.db"));
      expect(files).toContain("jury.db-wal"); // the WAL is where fresh writes sit
      return Buffer.concat(files.map((f) => fs.readFileSync(path.join(dir, f))));
    }
    if (pgDumpOnPath())
      return execFileSync("pg_dump", ["--no-owner", pgUrl as string], { maxBuffer: 1 << 28 });
    return Buffer.from(JSON.stringify(await dumpStore(await readyDb())));
  }

  function expectNowhere(store: Buffer, logs: string, secrets: Record<string, string>) {
    for (const [what, value] of Object.entries(secrets)) {
      expect(store.includes(Buffer.from(value)), `${what} in the store`).toBe(false);
      expect(logs.includes(value), `${what} in the logs`).toBe(false);
    }
  }

  it(`no token, secret or session id in ${kind === "sqlite" ? "the database file and its WAL" : pgDumpOnPath() ? "a pg_dump of the database" : "any row of any table (pg_dump is not installed)"}, nor in the logs`, async () => {
    const db = await readyDb();
    const ayse = await addUser(db, "ayse", "admin", "test");
    expect(ayse).not.toBeNull();
    // the CLI prints the token once, on stdout, and nowhere else
    expect(await usersCommand(["add", "bo", "--role", "annotator"])).toBe(0);
    const bo = io.out.join("").trim();
    expect(bo).toMatch(/^jury_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(await usersCommand(["rotate", "bo"])).toBe(0);
    const boNew = io.out.join("").trim().split("\n").at(-1) as string;
    expect(boNew).not.toBe(bo);
    const ayseToken = ayse?.token as string;

    const session = await signIn(db, boNew, undefined);
    expect(session).toMatchObject({ kind: "user", name: "bo" });
    const sessionId = session?.kind === "user" ? session.sessionId : "";
    expect(await through({ bearer: ayseToken })).toBe(200);
    expect(await through({ session: sessionId })).toBe(200);
    expect(await usersCommand(["list", "--json"])).toBe(0);

    const secrets = {
      "ayse's token": ayseToken,
      "ayse's secret": secretOf(ayseToken),
      "bo's first token": bo,
      "bo's first secret": secretOf(bo),
      "bo's token": boNew,
      "bo's secret": secretOf(boNew),
      "bo's session id": sessionId,
    };
    const store = await storeBytes();
    expect(store.includes(Buffer.from("scrypt$")), "the store holds the hashes").toBe(true);
    // stdout holds exactly the two tokens the CLI printed, each once
    const out = io.out.join("");
    expect(out.split(bo).length - 1).toBe(1);
    expect(out.split(boNew).length - 1).toBe(1);
    expectNowhere(store, io.logs.join(""), secrets);
    expectNowhere(Buffer.alloc(0), out.split(bo).join("").split(boNew).join(""), secrets);
    // nor the secret's 32 raw bytes
    for (const t of [ayseToken, bo, boNew])
      expect(store.includes(Buffer.from(secretOf(t), "base64url")), "raw secret bytes").toBe(false);
  });

  it("a removed user's token and session are refused at once, though both just worked", async () => {
    const db = await readyDb();
    const cy = await addUser(db, "cy", "viewer", "test");
    const token = cy?.token as string;
    const session = await signIn(db, token, undefined);
    const sessionId = session?.kind === "user" ? session.sessionId : "";
    expect(await through({ bearer: token })).toBe(200);
    expect(await through({ session: sessionId })).toBe(200);
    expect(await usersCommand(["remove", "cy"])).toBe(0);
    expect(await through({ bearer: token })).toBe(401);
    expect(await through({ session: sessionId })).toBe(401);
    expect(
      await authenticate(db, { bearer: token, sessionCookie: undefined, accessCookie: undefined }, undefined),
    ).toBeNull();
  });

  it("a rotated user's old token and sessions are refused at once; the new token works", async () => {
    const db = await readyDb();
    const old = (await addUser(db, "dee", "annotator", "test"))?.token as string;
    const session = await signIn(db, old, undefined);
    const sessionId = session?.kind === "user" ? session.sessionId : "";
    expect(await through({ bearer: old })).toBe(200);
    const fresh = (await rotateUser(db, "dee", "test"))?.token as string;
    expect(await through({ bearer: old })).toBe(401);
    expect(await through({ session: sessionId })).toBe(401);
    expect(await through({ bearer: fresh })).toBe(200);
    expect(await removeUser(db, "dee", "test")).toBe(true);
    expect(await through({ bearer: fresh })).toBe(401);
  });
});

function pgDumpOnPath(): boolean {
  try {
    execFileSync("pg_dump", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
