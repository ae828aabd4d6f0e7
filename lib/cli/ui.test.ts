import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/fixtures";
import { runJurySync } from "../testing/run-jury";
import { checkServeRules, dashboardDir } from "./ui";

const TOKEN = "a-long-random-token-0123";

describe("jury ui: the rules npm start follows", () => {
  it("loopback needs nothing; any other address needs a token of 16+ characters", () => {
    for (const host of ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
      expect(checkServeRules(host, 3000, {})).toBeNull();
    expect(() => checkServeRules("0.0.0.0", 3000, {})).toThrow(
      "refusing to listen on 0.0.0.0 without JURY_ACCESS_TOKEN",
    );
    expect(() => checkServeRules("127.0.0.1", 3000, { JURY_ACCESS_TOKEN: "short" })).toThrow(
      "JURY_ACCESS_TOKEN must be at least 16 characters",
    );
    // with a token: served, with a warning until the names people use are listed
    expect(checkServeRules("0.0.0.0", 8080, { JURY_ACCESS_TOKEN: TOKEN })).toMatch(
      /answering requests for 0.0.0.0:8080 and loopback only/,
    );
    expect(
      checkServeRules("0.0.0.0", 8080, { JURY_ACCESS_TOKEN: TOKEN, JURY_ALLOWED_HOSTS: "jury.lan" }),
    ).toBeNull();
    expect(() => checkServeRules("127.0.0.1", 3000, { JURY_ALLOWED_HOSTS: "ok.lan, http://bad/" })).toThrow(
      'JURY_ALLOWED_HOSTS has entries that are not host or host:port: "http://bad/"',
    );
  });

  it("refuses before serving: exit 2 naming the address or the variable", () => {
    const refused = runJurySync(["ui", "--host", "0.0.0.0", "--port", "3999"], {
      env: { JURY_ACCESS_TOKEN: "" },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("jury ui: refusing to listen on 0.0.0.0 without JURY_ACCESS_TOKEN");
    const badPort = runJurySync(["ui"], { env: { PORT: "eighty" } });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('PORT="eighty"');
    expect(runJurySync(["ui", "--port", "70000"]).code).toBe(2);
  });

  it("serves a checkout's own build, else the package's prebuilt dashboard/, else says how to build", () => {
    const root = tempDir("jury-ui-root-");
    expect(() => dashboardDir(root)).toThrow(/The dashboard is not built.*npm run build/);
    fs.mkdirSync(path.join(root, "dashboard", ".next"), { recursive: true });
    fs.writeFileSync(path.join(root, "dashboard", ".next", "BUILD_ID"), "x");
    expect(dashboardDir(root)).toBe(path.join(root, "dashboard"));
    fs.mkdirSync(path.join(root, ".next"));
    fs.writeFileSync(path.join(root, ".next", "BUILD_ID"), "y");
    expect(dashboardDir(root)).toBe(root);
  });
});
