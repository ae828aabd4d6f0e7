// Issue 24's acceptance: every role × every server action and route. A refused call answers 403
// naming the role it needs and changes nothing (the whole store is dumped before and after); an
// allowed call gets past the guard (it may still fail on the input given here, never with a 403).
// Actions and routes are found by scanning app/, so a new one is covered, or fails, at once.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeDb, readyDb } from "@/db/client";
import type { Actor } from "@/lib/auth/actor";
import { actionRoles, aRole, pathRole, roleAllows, type UserRole, userRoles } from "@/lib/auth/roles";
import { dumpStore } from "@/lib/testing/dump-store";
import { tempDir } from "@/lib/testing/fixtures";
import { actAs } from "@/lib/testing/request-context";
import { emptyPgDatabase, storeKinds } from "@/lib/testing/stores";

vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const ROOT = path.resolve(import.meta.dirname, "../..");
const ACTIONS_DIR = path.join(ROOT, "app/actions");

const actionFiles = fs
  .readdirSync(ACTIONS_DIR)
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
  .sort();

type AnyFn = (...args: unknown[]) => Promise<unknown>;

/** Every exported server action, by name, from every file of app/actions. */
async function discoverActions(): Promise<Map<string, AnyFn>> {
  const found = new Map<string, AnyFn>();
  for (const file of actionFiles) {
    const mod = (await import(path.join(ACTIONS_DIR, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      expect(typeof value, `${file} exports ${name}, which is not a function`).toBe("function");
      expect(found.has(name), `${name} is exported twice`).toBe(false);
      found.set(name, value as AnyFn);
    }
  }
  return found;
}

const form = (entries: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(entries)) f.append(k, v);
  return f;
};

/**
 * Arguments that would change the store if the guard let them through (a study imported, a label,
 * a settings save): a refusal must leave them undone. Actions that would start judges or workers get
 * arguments of the wrong shape instead (a typed failure after the guard); so does any new action.
 */
const changingArgs: Record<string, () => unknown[]> = {
  importExampleStudy: () => [],
  annotate: () => [
    {
      collection: "shop-api",
      queryId: "q01",
      memoryId: "bug-double-fulfilment-webhook-retry",
      relevant: false,
    },
  ],
  undoAnnotation: () => [{ collection: "shop-api", queryId: "q01" }],
  startFreshAnnotation: () => [{ collection: "shop-api" }],
  saveSettings: () => [null, form({ payload: JSON.stringify({ judging: { samples: 2 } }) })],
  cancelRun: () => ["run_20260101_deadbeef"],
  cancelReview: () => ["rev_0000"],
};

const NOBODY = "nobody";
type Who = UserRole | typeof NOBODY;
const everyone: Who[] = [NOBODY, ...userRoles];
const actorOf = (who: Who): Actor | null =>
  who === NOBODY ? null : { name: `t-${who}`, role: who, via: "user" };
const allows = (who: Who, need: UserRole) => who !== NOBODY && roleAllows(who, need);

// ---- routes -------------------------------------------------------------------------------------

/** Route handlers that need no role, and why. Anything else under app/ must call allowRoute. */
const PUBLIC_ROUTES: Record<string, string> = {
  "app/auth/sign-in/route.ts": "the sign-in form posts a token here; the handler checks the token itself",
  "app/auth/sign-out/route.ts": "ends the caller's own session only (the cookie it sends); nothing else",
};

function routeFiles(dir = path.join(ROOT, "app")): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? routeFiles(path.join(dir, e.name))
        : e.name === "route.ts"
          ? [path.join(dir, e.name)]
          : [],
    )
    .map((f) => path.relative(ROOT, f))
    .sort();
}

/** A route file's URL path with each `[param]` filled in, and its params. */
function routeUrl(file: string): { urlPath: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const segments = path
    .dirname(file)
    .split(path.sep)
    .slice(1)
    .filter((s) => !/^\(.*\)$/.test(s))
    .map((s) => {
      const m = /^\[(?:\.\.\.)?(\w+)\]$/.exec(s);
      if (!m) return s;
      params[m[1]] = `x${m[1]}`;
      return params[m[1]];
    });
  return { urlPath: `/${segments.join("/")}`, params };
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

describe("every server action has a role, every route a guard", () => {
  it("the exported actions of app/actions are exactly the keys of actionRoles", async () => {
    const names = [...(await discoverActions()).keys()].sort();
    expect(names).toEqual(Object.keys(actionRoles).sort());
  });

  it("viewers change nothing; settings and promotion are the admin's; everything else the annotator's", () => {
    // docs/people.md's table, pinned apart from actionRoles so a weakened role fails here
    for (const [name, need] of Object.entries(actionRoles))
      expect(need, name).toBe(/^(saveSettings|promote)/.test(name) ? "admin" : "annotator");
  });

  it("each action asks the guard for its own name first", () => {
    for (const file of actionFiles) {
      const src = fs.readFileSync(path.join(ACTIONS_DIR, file), "utf8");
      for (const m of src.matchAll(/export async function (\w+)\([\s\S]*?\{\n(.*)\n/g))
        expect(m[2].trim(), `${file}: ${m[1]}`).toBe(`const allowed = await allowAction("${m[1]}");`);
    }
  });

  it("each route either calls allowRoute with at least the role its path needs (pathRole), or is listed as public", () => {
    const files = routeFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const src = fs.readFileSync(path.join(ROOT, file), "utf8");
      const needs = [...src.matchAll(/allowRoute\("(\w+)"\)/g)].map((m) => m[1]);
      if (file in PUBLIC_ROUTES) {
        expect(needs, `${file} is listed as public`).toEqual([]);
        continue;
      }
      const handlers = METHODS.filter((m) => new RegExp(`export (async )?function ${m}\\b`).test(src));
      expect(handlers.length, `${file} exports no handler`).toBeGreaterThan(0);
      expect(needs.length, `${file}: each handler calls allowRoute("<role>")`).toBe(handlers.length);
      for (const need of needs) {
        expect(userRoles, file).toContain(need);
        // never less than proxy.ts checks for its path (it may ask more: an admin's download under /api)
        const byPath = pathRole(routeUrl(file).urlPath);
        expect(
          roleAllows(need as UserRole, byPath),
          `${file}: allowRoute("${need}") under a ${byPath}'s path`,
        ).toBe(true);
      }
    }
    for (const file of Object.keys(PUBLIC_ROUTES))
      expect(files, "a public route that no longer exists").toContain(file);
  });
});

describe.each(storeKinds())("roles on %s", (kind) => {
  let drop: (() => Promise<void>) | undefined;
  let actions: Map<string, AnyFn>;

  beforeAll(async () => {
    if (kind === "pg") {
      const database = await emptyPgDatabase();
      process.env.JURY_DATABASE_URL = database.url;
      drop = database.drop;
    } else {
      delete process.env.JURY_DATABASE_URL;
      process.env.JURY_DB = path.join(tempDir(), "roles.db");
    }
    await readyDb();
    actions = await discoverActions();
    // something in the store for a refused call to leave alone
    actAs(actorOf("admin"));
    expect(await actions.get("importExampleStudy")?.()).toMatchObject({ ok: true });
    const dump = await dumpStore(await readyDb());
    expect(Object.values(dump).flat().length, "rows for a refusal to leave alone").toBeGreaterThan(100);
  }, 120_000);

  afterAll(async () => {
    actAs({ name: "local", role: "admin", via: "open" });
    if (kind === "pg") {
      await closeDb(await readyDb());
      delete process.env.JURY_DATABASE_URL;
      await drop?.();
    }
  });

  const cases = Object.entries(actionRoles).flatMap(([name, need]) =>
    everyone.map((who) => ({ name, need: need as UserRole, who })),
  );

  it.each(cases)("$name as $who", async ({ name, need, who }) => {
    const action = actions.get(name);
    expect(action, `${name} is not exported by app/actions`).toBeDefined();
    const args = changingArgs[name]?.() ?? [];
    actAs(actorOf(who));
    const db = await readyDb();
    const before = await dumpStore(db);
    const result = (await action?.(...args)) as { status?: number; ok?: boolean; error?: string } | null;
    if (allows(who, need)) {
      expect(result?.status, `${name} refused ${who}: ${result?.error}`).not.toBe(403);
    } else {
      expect(result).toMatchObject({ ok: false, status: 403 });
      expect(result?.error).toContain(`needs ${aRole(need)}`);
      expect(await dumpStore(db)).toEqual(before);
    }
  });

  const routeCases = routeFiles()
    .filter((f) => !(f in PUBLIC_ROUTES))
    .flatMap((file) => everyone.map((who) => ({ file, who })));

  it.each(routeCases)("$file as $who", async ({ file, who }) => {
    const src = fs.readFileSync(path.join(ROOT, file), "utf8");
    const need = (/allowRoute\("(\w+)"\)/.exec(src)?.[1] ?? "admin") as UserRole;
    const mod = (await import(path.join(ROOT, file))) as Record<string, unknown>;
    const { urlPath, params } = routeUrl(file);
    actAs(actorOf(who));
    const db = await readyDb();
    for (const method of METHODS) {
      const handler = mod[method] as
        | ((req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>)
        | undefined;
      if (!handler) continue;
      const before = await dumpStore(db);
      const res = await handler(new Request(`http://127.0.0.1:3000${urlPath}`, { method }), {
        params: Promise.resolve(params),
      });
      if (allows(who, need)) {
        expect(res.status, `${method} ${urlPath} as ${who}`).not.toBe(403);
      } else {
        expect(res.status, `${method} ${urlPath} as ${who}`).toBe(403);
        expect(await res.text()).toContain(`needs ${aRole(need)}`);
        expect(await dumpStore(db)).toEqual(before);
      }
    }
  });
});
