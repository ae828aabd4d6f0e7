import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, writeJson } from "../testing/fixtures";
import { effectiveCriteria, loadSuite, resolveOutput } from "./load-suite";

let url = "";
let received: unknown;
const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    received = JSON.parse(body || "null");
    if (req.url === "/broken") return res.writeHead(500).end("boom");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ episodes: [{ id: "e1", scores: { credibility: 4 } }] }));
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("suites", () => {
  it("fetches the output from the system under test with the setup payload", async () => {
    const out = await resolveOutput("/", {
      id: "c",
      name: "c",
      input: {},
      output: {
        http: {
          url: `${url}/recommend`,
          method: "POST",
          setup: { engagements: [], excluded_ids: ["x"] },
          timeout_ms: 2000,
        },
      },
    });
    expect(JSON.parse(out).episodes[0].id).toBe("e1");
    expect(received).toEqual({ engagements: [], excluded_ids: ["x"] });
    await expect(
      resolveOutput("/", {
        id: "c",
        name: "c",
        input: {},
        output: { http: { url: `${url}/broken`, method: "POST", timeout_ms: 2000 } },
      }),
    ).rejects.toThrow(/case "c": .*\/broken answered HTTP 500: boom/);
  });

  it("names the file and field of a bad case, and merges case overrides over the suite's", () => {
    const dir = tempDir();
    writeJson(path.join(dir, "suite.json"), {
      name: "s",
      criteria: [{ id: "a", threshold: 6, params: { x: 1, y: 2 } }],
    });
    writeJson(path.join(dir, "cases", "one.json"), {
      id: "one",
      name: "one",
      output: "o",
      criteria: [{ id: "a", params: { y: 3 } }],
    });
    const suite = loadSuite(dir);
    expect(effectiveCriteria(suite, suite.cases[0])).toEqual([
      { id: "a", threshold: 6, params: { x: 1, y: 3 } },
    ]);
    writeJson(path.join(dir, "cases", "two.json"), { id: "two", name: 5, output: "o" });
    expect(() => loadSuite(dir)).toThrow(/cases\/two\.json: name: /);
  });
});

describe("input that breaks a recursive parser", () => {
  const nested = (depth: number, leaf = "1") => `${'{"a":'.repeat(depth)}${leaf}${"}".repeat(depth)}`;

  it("a case output nested 100,000 levels deep is refused at load, naming the file, the case and the field", () => {
    const dir = tempDir();
    writeJson(path.join(dir, "suite.json"), { name: "deep", criteria: [{ id: "length_bounds" }] });
    writeJson(path.join(dir, "cases", "ok.json"), { id: "ok", name: "ok", output: { a: { b: [1, 2] } } });
    writeJson(
      path.join(dir, "cases", "deep.json"),
      `{"id":"deep","name":"deep","output":${nested(100_000)}}`,
    );
    const file = path.join(dir, "cases", "deep.json");
    expect(() => loadSuite(dir)).toThrow(
      `${file}: case "deep": output.a.a.a.a.a… is nested deeper than 100 levels`,
    );
  });

  it("an array nested as deep in suite.json's inline cases names suite.json and the case", () => {
    const dir = tempDir();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    writeJson(
      path.join(dir, "suite.json"),
      `{"name":"deep","criteria":[{"id":"length_bounds"}],"cases":[{"id":"first","name":"x","output":"fine"},{"id":"inline","name":"x","input":{"profile":${deep}},"output":"x"}]}`,
    );
    expect(() => loadSuite(dir)).toThrow(
      `${path.join(dir, "suite.json")}: case "inline": cases.1.input.profile.0.0… is nested deeper than 100 levels`,
    );
  });

  it("a value 100 levels deep still loads and its output is the JSON text", async () => {
    const dir = tempDir();
    writeJson(path.join(dir, "suite.json"), { name: "ok", criteria: [{ id: "length_bounds" }] });
    // the case file is level 1, so the output may nest 99 levels
    writeJson(path.join(dir, "cases", "c.json"), `{"id":"c","name":"c","output":${nested(99)}}`);
    const suite = loadSuite(dir);
    expect(JSON.parse(await resolveOutput(dir, suite.cases[0]))).toBeTypeOf("object");
  });
});
