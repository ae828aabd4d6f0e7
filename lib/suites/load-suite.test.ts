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
