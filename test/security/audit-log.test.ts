// The audit log: a settings save and each kind of promotion append an entry naming who did it and
// what changed, in the same transaction; a credential (a key's variable, a URL's password or query,
// a key's value) never reaches it; only an admin reads it through the export route. Both stores.
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import { tempDir, writeJson } from "@/lib/testing/fixtures";
import { actAs } from "@/lib/testing/request-context";
import { freshStore, type Store, storeKinds } from "@/lib/testing/stores";

const current = vi.hoisted(() => ({ db: undefined as unknown }));
vi.mock("@/db/client", async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  getDb: () => current.db,
}));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

const ADMIN: Actor = { name: "ayse", role: "admin", via: "user" };
const ANNOTATOR: Actor = { name: "bo", role: "annotator", via: "user" };
const VIEWER: Actor = { name: "cem", role: "viewer", via: "user" };

const SECRET = "sk-live-0123456789abcdef";
const PASSWORD = "hunter2-pw";

/** Everything the audit log holds, as text. */
async function auditText(): Promise<string> {
  const { listAudit } = await import("@/db/queries/users");
  return JSON.stringify(await listAudit(current.db as never, { limit: 10_000 }));
}

describe.each(storeKinds())("the audit log on %s", (kind) => {
  let store: Store;
  const savedKey = process.env.JURY_ROUTER_API_KEY;
  beforeEach(async () => {
    store = await freshStore(kind);
    current.db = store.db;
    process.env.JURY_ROUTER_API_KEY = SECRET;
  });
  afterEach(async () => {
    actAs({ name: "local", role: "admin", via: "open" });
    if (savedKey === undefined) delete process.env.JURY_ROUTER_API_KEY;
    else process.env.JURY_ROUTER_API_KEY = savedKey;
    await store.close();
  });

  it("a settings save records who changed which settings, before and after, never a credential", async () => {
    const { saveSettings } = await import("@/app/actions/settings");
    const { listAudit } = await import("@/db/queries/users");
    const { defaultSettings } = await import("@/lib/settings/schema");
    actAs(ADMIN);
    const s = structuredClone(defaultSettings);
    s.judging.samples = 5;
    s.endpoints = [
      {
        name: "router",
        baseUrl: `https://bob:${PASSWORD}@router.example/v1?api_key=${SECRET}`,
        apiKeyEnv: "JURY_ROUTER_API_KEY",
        enabled: true,
        models: ["m"],
      },
    ];
    const payload = new FormData();
    payload.append("payload", JSON.stringify(s));
    expect(await saveSettings(null, payload)).toMatchObject({ ok: true });
    const [entry, ...rest] = await listAudit(store.db);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ actor: "ayse", action: "settings.save", target: null });
    const changes = (entry.detail as { changes: unknown[] }).changes;
    expect(changes).toContainEqual({ path: "judging.samples", before: 3, after: 5 });
    expect(changes).toContainEqual({ path: "endpoints.router.apiKeyEnv", redacted: true });
    expect(changes).toContainEqual({ path: "endpoints.router.baseUrl", redacted: true });
    expect(changes).toContainEqual({ path: "endpoints.router.name", after: "router" });
    const text = await auditText();
    for (const secret of [SECRET, PASSWORD, "JURY_ROUTER_API_KEY"]) expect(text).not.toContain(secret);

    // saving the same settings again changes nothing: no entry
    expect(await saveSettings(null, payload)).toMatchObject({ ok: true });
    expect(await listAudit(store.db)).toHaveLength(1);
  });

  it("promoting a study configuration and a run's panel records who, what, and the figures", async () => {
    const { promoteExperimentAction, promotePanelAction } = await import("@/app/actions/promote");
    const { listAudit } = await import("@/db/queries/users");
    const { setVerdictLabel } = await import("@/db/queries/labels");
    const { CASES, seedRun } = await import("@/lib/testing/agreement-run");
    const { importStudyFolder } = await import("@/lib/memory/import");
    const { runExperiment } = await import("@/lib/memory/experiment");
    const { readSettings } = await import("@/lib/settings/store");
    const { describeProvenance } = await import("@/lib/settings/provenance");
    const db = store.db;
    // a study whose one configuration kept nothing (so the promotion needs its warnings confirmed)
    const dir = tempDir();
    writeJson(path.join(dir, "memories", "a.json"), {
      id: "a",
      category: "decision",
      title: "Invoices are rounded to cents",
      tags: ["billing"],
      body: "Round half to even.",
    });
    writeJson(path.join(dir, "queries.json"), [{ id: "q0", text: "zebra crossing", relevant: ["a"] }]);
    await importStudyFolder(db, dir, "notes");
    const exp = await runExperiment(db, {
      collection: "notes",
      config: { kind: "bm25", mode: "auto", topK: 3, poolSize: 15, shuffle: false },
      settings: await readSettings(db),
    });
    actAs(ADMIN);
    const refused = await promoteExperimentAction({ experimentId: exp });
    expect(refused.ok).toBe(false);
    expect(await listAudit(db)).toEqual([]); // a refusal changes nothing and records nothing
    const codes = refused.needsConfirmation?.warnings.map((w) => w.code);
    expect(await promoteExperimentAction({ experimentId: exp, confirmed: codes })).toMatchObject({
      ok: true,
      data: { provenance: expect.stringContaining(" by ayse") },
    });

    const runId = await seedRun(db);
    for (const [i, caseId] of CASES.slice(0, 2).entries())
      await setVerdictLabel(db, { runId, caseId, criterionId: "helpful" }, { passed: i === 0, score: null });
    const ask = { runId, criterionId: "helpful", judge: "panel", target: "criterion" };
    const guard = (await promotePanelAction(ask)).needsConfirmation;
    expect(await promotePanelAction({ ...ask, confirmed: guard?.warnings.map((w) => w.code) })).toMatchObject(
      { ok: true },
    );

    const [panel, experiment] = await listAudit(db);
    expect(experiment).toMatchObject({
      actor: "ayse",
      action: "promote.experiment",
      target: "memoryJudge",
      detail: {
        source: "experiment",
        id: exp,
        figures: { precision: expect.any(Object), recall: expect.any(Object) },
        changes: expect.arrayContaining([{ path: "memoryJudge.collection", after: "notes" }]),
      },
    });
    expect(panel).toMatchObject({
      actor: "ayse",
      action: "promote.panel",
      target: "criteriaPanels.helpful",
      detail: {
        source: "run",
        id: runId,
        changes: [{ path: "criteriaPanels.helpful", after: ["local:a", "local:b"] }],
      },
    });
    // the promote note names who promoted
    const s = await readSettings(db);
    expect(s.provenance["criteriaPanels.helpful"].by).toBe("ayse");
    expect(describeProvenance(s.provenance.memoryJudge)).toMatch(/ on \d{4}-\d\d-\d\d by ayse/);
  });

  it("the export route answers an admin with CSV or JSON Lines, and anyone else with 403", async () => {
    const { GET } = await import("@/app/audit/export/route");
    const { appendAudit } = await import("@/db/queries/users");
    await appendAudit(store.db, {
      actor: "ayse",
      action: "user.add",
      target: "bo",
      detail: { role: "viewer" },
    });
    await appendAudit(store.db, {
      actor: "ayse",
      action: "user.role",
      target: "bo",
      detail: { from: "viewer", to: "admin" },
    });
    const get = (q: string) => GET(new Request(`http://127.0.0.1/audit/export${q}`));
    for (const who of [ANNOTATOR, VIEWER, null]) {
      actAs(who);
      const r = await get("?format=csv");
      expect(r.status).toBe(403);
      expect(await r.text()).toContain("This needs an admin");
    }
    actAs(ADMIN);
    const csv = await get("?format=csv");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.headers.get("content-disposition")).toContain("jury-audit.csv");
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toBe("id,at,actor,action,target,summary,detail");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(",ayse,user.role,bo,viewer → admin,"); // newest first
    const jsonl = await get("?format=jsonl");
    const entries = (await jsonl.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => e.action)).toEqual(["user.role", "user.add"]);
    expect((await get("?format=xml")).status).toBe(400);
  });
});
