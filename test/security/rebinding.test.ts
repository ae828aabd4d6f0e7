import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AppProcess,
  actionId,
  freePort,
  requireBuild,
  sendRaw,
  startApp,
  stopApp,
} from "@/e2e/app-server";
import { defaultSettings } from "@/lib/settings/schema";
import { tempDir } from "@/lib/testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";

// The DNS-rebinding attack of issue 16, replayed against the built server (`npm start`): a page on
// attacker.example whose name now resolves to 127.0.0.1 posts to the server actions. The browser
// sends `Host` and `Origin` of attacker.example, which Next's own action check accepts (they agree);
// proxy.ts must refuse before any app code runs, so the listener standing in for the attacker's
// endpoint never hears from Jury.

const OPENAI_KEY = "sk-jury-rebinding-canary-0123456789";
const TOKEN = "jury-rebinding-token-0123456789abcdef";

type Reply = { status: number; headers: http.IncomingHttpHeaders; body: string };

const send = sendRaw;

/**
 * A server-action call the way React's client (encodeReply) sends `action(prev, formData)`: a
 * multipart body whose field `0` holds the argument list, the form referenced as `$K1` and its
 * fields prefixed `_1_` and sent before it. The positive controls below fail if a React upgrade changes this.
 */
async function actionBody(fields: Record<string, string | string[]>, root = '[null,"$K1"]') {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) form.append(`_1_${k}`, x);
  form.append("0", root); // last, as React sends it: the server reads the list once it arrives
  const res = new Response(form);
  return {
    body: Buffer.from(await res.arrayBuffer()),
    contentType: res.headers.get("content-type") ?? "",
  };
}

async function callAction(
  port: number,
  page: string,
  id: string,
  fields: Record<string, string | string[]>,
  headers: Record<string, string>,
  root?: string,
): Promise<Reply> {
  const { body, contentType } = await actionBody(fields, root);
  return send(port, {
    method: "POST",
    path: page,
    headers: { "next-action": id, accept: "text/x-component", "content-type": contentType, ...headers },
    body,
  });
}

function storedSettings(db: string): unknown {
  if (!fs.existsSync(db)) return undefined;
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const row = conn.prepare("select data from settings where id = 1").get() as { data: string } | undefined;
    return row ? JSON.parse(row.data) : undefined;
  } catch {
    return undefined; // not migrated yet: nothing stored
  } finally {
    conn.close();
  }
}

const qaSuite = path.resolve("examples/suites/qa");
let listener: ScriptedServer;
let saveSettingsId: string;
let startRunId: string;

beforeAll(async () => {
  requireBuild("test/security/rebinding.test.ts");
  saveSettingsId = actionId("app/actions/settings.ts", "saveSettings");
  startRunId = actionId("app/actions/runs.ts", "startRun");
  listener = await startScriptedServer(() => ({ text: '{"score": 10, "reasoning": "ok"}' }));
});

afterAll(async () => {
  await listener?.close();
});

describe("without an access token (the default setup)", () => {
  let app: AppProcess;
  let port: number;
  let db: string;
  let attacker: Record<string, string>;
  const evilSettings = () => ({
    ...defaultSettings,
    endpoints: [
      { name: "evil", baseUrl: listener.baseURL, apiKeyEnv: "OPENAI_API_KEY", enabled: true, models: ["x"] },
    ],
  });
  const calmSettings = { ...defaultSettings, judging: { ...defaultSettings.judging, temperature: 0.25 } };

  beforeAll(async () => {
    port = await freePort();
    db = path.join(tempDir(), "jury.db");
    app = await startApp({ port, db, env: { OPENAI_API_KEY: OPENAI_KEY, JURY_ALLOWED_HOSTS: "" } });
    attacker = { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` };
  }, 90_000);

  afterAll(async () => {
    if (app) await stopApp(app);
  });

  it("refuses the rebinding attack's action posts with 421, and the listener hears nothing", async () => {
    const save = await callAction(
      port,
      "/settings",
      saveSettingsId,
      { payload: JSON.stringify(evilSettings()) },
      attacker,
    );
    expect(save.status).toBe(421);
    expect(save.headers["content-type"]).toMatch(/^text\/plain/);
    expect(save.body).toContain('refused a request for host "attacker.example:');
    // even a valid payload: the refusal is the host's, not the settings validation's
    const calm = await callAction(
      port,
      "/settings",
      saveSettingsId,
      { payload: JSON.stringify(calmSettings) },
      attacker,
    );
    expect(calm.status).toBe(421);
    const run = await callAction(
      port,
      "/runs",
      startRunId,
      { suiteDir: qaSuite, judges: "evil:x", n: "1" },
      attacker,
    );
    expect(run.status).toBe(421);
    expect(storedSettings(db)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 500));
    expect(listener.requests).toHaveLength(0);
  });

  it("refuses pages, RSC requests and route lookups for a foreign Host", async () => {
    for (const p of ["/", "/settings", "/runs?x=1", "/_next/staticx", "/no-such-page"]) {
      const r = await send(port, { path: p, headers: { host: `attacker.example:${port}` } });
      expect(r.status, p).toBe(421);
    }
    const rsc = await send(port, {
      path: "/settings",
      headers: { host: `attacker.example:${port}`, rsc: "1" },
    });
    expect(rsc.status).toBe(421);
    // the right name on the wrong port is another server's name
    expect((await send(port, { path: "/", headers: { host: "127.0.0.1:1" } })).status).toBe(421);
  });

  it("refuses a write from a foreign or missing Origin even with the right Host (403)", async () => {
    const payload = { payload: JSON.stringify(calmSettings) };
    const foreign = await callAction(port, "/settings", saveSettingsId, payload, {
      origin: "http://attacker.example",
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain("refused a POST from origin");
    expect((await callAction(port, "/settings", saveSettingsId, payload, {})).status).toBe(403);
    expect((await callAction(port, "/settings", saveSettingsId, payload, { origin: "null" })).status).toBe(
      403,
    );
    const plainPost = await send(port, {
      method: "POST",
      path: "/settings",
      headers: { origin: "http://evil" },
    });
    expect(plainPost.status).toBe(403);
    expect(storedSettings(db)).toBeUndefined();
  });

  it("answers the same requests with the right Host and Origin", async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const page = await send(port, { path: "/settings", headers: { host } });
      expect(page.status, host).toBe(200);
      expect(page.body).toContain("Settings");
    }
    const saved = await callAction(
      port,
      "/settings",
      saveSettingsId,
      { payload: JSON.stringify(calmSettings) },
      {
        origin: `http://127.0.0.1:${port}`,
      },
    );
    expect(saved.status).toBe(200);
    expect(saved.body).toContain("savedAt");
    expect(storedSettings(db)).toMatchObject({ judging: { temperature: 0.25 } });
  });

  it("answers an action posted with the wrong argument shape with a typed error, and logs no stack", async () => {
    const r = await callAction(
      port,
      "/settings",
      saveSettingsId,
      {},
      { origin: `http://127.0.0.1:${port}` },
      "[null,null]",
    );
    expect(r.status).toBe(200);
    expect(r.body).toContain("Bad request: expected form data, got null.");
    const run = await callAction(
      port,
      "/runs",
      startRunId,
      {},
      { origin: `http://127.0.0.1:${port}` },
      '[null,{"0":[null,null]}]',
    );
    expect(run.body).toContain("Bad request: expected form data, got an object.");
    expect(app.output()).not.toMatch(/TypeError|\n\s+at /);
  });
});

describe("with JURY_ACCESS_TOKEN set", () => {
  let app: AppProcess;
  let port: number;
  let db: string;

  beforeAll(async () => {
    port = await freePort();
    db = path.join(tempDir(), "jury.db");
    app = await startApp({ port, db, env: { OPENAI_API_KEY: OPENAI_KEY, JURY_ACCESS_TOKEN: TOKEN } });
  }, 90_000);

  afterAll(async () => {
    if (app) await stopApp(app);
  });

  it("skips the token only for the exact build-asset folder", async () => {
    expect((await send(port, { path: "/_next/staticx" })).status).toBe(401);
    expect((await send(port, { path: "/_next/static" })).status).toBe(401);
    expect((await send(port, { path: "/settings" })).status).toBe(401);
    const page = await send(port, { path: "/settings", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(page.status).toBe(200);
    const chunk = /\/_next\/static\/[^"']+\.js/.exec(page.body)?.[0];
    expect(chunk, "a script of the settings page").toBeTruthy();
    expect((await send(port, { path: chunk as string })).status).toBe(200);
  });

  it("accepts only `Authorization: Bearer <token>`, the scheme in any case", async () => {
    for (const authorization of [`bearer ${TOKEN}`, `BEARER ${TOKEN}`])
      expect(
        (await send(port, { path: "/settings", headers: { authorization } })).status,
        authorization,
      ).toBe(200);
    for (const authorization of [`Token ${TOKEN}`, TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, "Bearer "])
      expect(
        (await send(port, { path: "/settings", headers: { authorization } })).status,
        authorization,
      ).toBe(401);
  });

  it("sets a cookie that is an HMAC of the token, not the token, Secure behind HTTPS", async () => {
    const login = await send(port, { path: `/runs?token=${TOKEN}` });
    expect(login.status).toBe(307);
    expect(login.headers.location).toMatch(/\/runs$/);
    const setCookie = String(login.headers["set-cookie"]);
    const value = /jury_token=([^;]*)/.exec(setCookie)?.[1] ?? "";
    expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(setCookie).not.toContain(TOKEN);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).not.toMatch(/Secure/i);
    expect((await send(port, { path: "/settings", headers: { cookie: `jury_token=${value}` } })).status).toBe(
      200,
    );
    // the raw token in the cookie is not a session
    expect((await send(port, { path: "/settings", headers: { cookie: `jury_token=${TOKEN}` } })).status).toBe(
      401,
    );
    expect((await send(port, { path: "/runs?token=wrong-token-wrong-token" })).status).toBe(401);
    const proxied = await send(port, {
      path: `/runs?token=${TOKEN}`,
      headers: { "x-forwarded-proto": "https" },
    });
    expect(String(proxied.headers["set-cookie"])).toMatch(/;\s*Secure/i);
  });

  it("still refuses a foreign Host or Origin to a token holder, and a key variable that is not the endpoint's own at validation", async () => {
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const evil = (apiKeyEnv: string) => ({
      payload: JSON.stringify({
        ...defaultSettings,
        endpoints: [{ name: "evil", baseUrl: listener.baseURL, apiKeyEnv, enabled: true, models: ["x"] }],
      }),
    });
    const forged = await callAction(port, "/settings", saveSettingsId, evil("JURY_ACCESS_TOKEN"), {
      ...bearer,
      host: `attacker.example:${port}`,
      origin: `http://attacker.example:${port}`,
    });
    expect(forged.status).toBe(421);
    for (const name of ["JURY_ACCESS_TOKEN", "OPENAI_API_KEY"]) {
      const r = await callAction(port, "/settings", saveSettingsId, evil(name), {
        ...bearer,
        origin: `http://127.0.0.1:${port}`,
      });
      expect(r.status).toBe(200);
      expect(r.body).toContain(`Key variable \\"${name}\\" is not allowed`);
    }
    const run = await callAction(
      port,
      "/runs",
      startRunId,
      { suiteDir: qaSuite, judges: "evil:x", n: "1" },
      {
        ...bearer,
        origin: `http://127.0.0.1:${port}`,
      },
    );
    expect(run.body).toContain("Unknown judge.");
    expect(storedSettings(db)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 500));
    expect(listener.requests).toHaveLength(0);
  });
});
