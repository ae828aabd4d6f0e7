import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";

// Server actions are public POST endpoints: each must validate its input and refuse unknown ids.
// These calls all fail before any write, so no request context is needed.
beforeAll(() => {
  process.env.JURY_DB = path.join(tempDir(), "actions.db");
});

describe("server actions refuse bad input and unknown ids", () => {
  it("runs: cancel and resume", async () => {
    const { cancelRun, resumeRun } = await import("@/app/actions/runs");
    expect(await cancelRun("'; drop table runs; --")).toMatchObject({ ok: false, error: "Not a run id" });
    expect(await cancelRun("run_20260101_deadbeef")).toMatchObject({ ok: false, error: "No such run" });
    expect(await resumeRun("run_20260101_deadbeef")).toMatchObject({ ok: false, error: "No such run" });
  });

  it("runs: start refuses an unlisted suite folder, judges not enabled, and N out of range", async () => {
    const { startRun } = await import("@/app/actions/runs");
    const form = (entries: [string, string][]) => {
      const f = new FormData();
      for (const [k, v] of entries) f.append(k, v);
      return f;
    };
    expect(
      await startRun(
        null,
        form([
          ["suiteDir", "/etc"],
          ["judges", "mock:judge"],
          ["n", "3"],
        ]),
      ),
    ).toMatchObject({ ok: false, fieldErrors: { suiteDir: "Not one of the listed suites" } });
    const qa = path.resolve("examples/suites/qa");
    expect(
      await startRun(
        null,
        form([
          ["suiteDir", qa],
          ["judges", "evil:model"],
          ["n", "3"],
        ]),
      ),
    ).toMatchObject({ ok: false, fieldErrors: { judges: "Not enabled in Settings: evil:model" } });
    expect(
      await startRun(
        null,
        form([
          ["suiteDir", qa],
          ["judges", "mock:judge"],
          ["n", "11"],
        ]),
      ),
    ).toMatchObject({ ok: false, fieldErrors: { n: "N must be at most 10" } });
  });

  it("memory: annotations of unknown studies, queries or memories, and malformed input", async () => {
    const { annotate, startExperiment } = await import("@/app/actions/memory");
    expect(await annotate({ collection: "../x", queryId: "q", memoryId: "m", relevant: true })).toMatchObject(
      { ok: false },
    );
    expect(
      await annotate({ collection: "nope", queryId: "q01", memoryId: "m", relevant: "yes" }),
    ).toMatchObject({ ok: false, error: "Invalid annotation" });
    expect(
      await annotate({ collection: "nope", queryId: "q01", memoryId: "m", relevant: true }),
    ).toMatchObject({ ok: false, error: 'No query "q01" in nope' });
    const f = new FormData();
    for (const [k, v] of Object.entries({
      collection: "nope",
      kind: "single",
      mode: "auto",
      topK: "3",
      poolSize: "15",
      n: "1",
      model: "",
    }))
      f.append(k, v);
    expect(await startExperiment(null, f)).toMatchObject({
      ok: false,
      fieldErrors: { model: expect.stringMatching(/judge model/) },
    });
  });

  it("settings: unreadable payloads and invalid values save nothing", async () => {
    const { saveSettings } = await import("@/app/actions/settings");
    const f = new FormData();
    f.append("payload", "{not json");
    expect(await saveSettings(null, f)).toMatchObject({
      ok: false,
      error: "The form sent no readable settings.",
    });
    const g = new FormData();
    g.append("payload", JSON.stringify({ judging: { samples: 0 } }));
    expect(await saveSettings(null, g)).toMatchObject({ ok: false });
  });
});

// A client can post any argument list to an action (a multipart body `0=[null,null]` gives
// `saveSettings(null, null)`): each action answers a wrong shape with a typed failure, never a throw.
describe("server actions refuse arguments of the wrong shape", () => {
  // biome-ignore lint/suspicious/noExplicitAny: the point is to bypass the declared types
  const wrongForms: any[] = [
    null,
    undefined,
    { 0: [null, null] },
    { get: () => "x" },
    [null, null],
    42,
    "payload",
  ];
  // biome-ignore lint/suspicious/noExplicitAny: same
  const wrongIds: any[] = [null, undefined, 42, { id: "run_20260101_deadbeef" }, ["run_20260101_deadbeef"]];
  const badShape = { ok: false, error: expect.stringMatching(/^Bad request: expected /), fieldErrors: {} };

  it("settings, runs and experiments want form data", async () => {
    const { saveSettings } = await import("@/app/actions/settings");
    const { startRun } = await import("@/app/actions/runs");
    const { startExperiment } = await import("@/app/actions/memory");
    for (const action of [saveSettings, startRun, startExperiment]) {
      for (const arg of wrongForms) {
        // biome-ignore lint/suspicious/noExplicitAny: wrong shapes on purpose
        const result = await (action as (p: any, f: any) => Promise<unknown>)(null, arg);
        expect(result, `${action.name}(null, ${JSON.stringify(arg)})`).toEqual({
          ...badShape,
          error: expect.stringMatching(/^Bad request: expected form data, got /),
        });
      }
    }
    expect(await saveSettings(null, null as never)).toEqual({
      ok: false,
      error: "Bad request: expected form data, got null.",
      fieldErrors: {},
    });
  });

  it("cancel and resume want a string id; annotate wants an object", async () => {
    const { cancelRun, resumeRun } = await import("@/app/actions/runs");
    const { annotate } = await import("@/app/actions/memory");
    for (const action of [cancelRun, resumeRun]) {
      for (const arg of wrongIds) {
        expect(await action(arg), `${action.name}(${JSON.stringify(arg)})`).toEqual({
          ...badShape,
          error: expect.stringMatching(/^Bad request: expected a string, got /),
        });
      }
    }
    expect(await cancelRun(42 as never)).toMatchObject({
      error: "Bad request: expected a string, got a number.",
    });
    for (const arg of [null, "q01", 7, [{ collection: "x" }], new FormData()]) {
      expect(await annotate(arg), `annotate(${JSON.stringify(arg)})`).toEqual({
        ...badShape,
        error: expect.stringMatching(/^Bad request: expected an object, got /),
      });
    }
  });
});
