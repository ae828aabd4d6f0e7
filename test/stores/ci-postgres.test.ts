import pg from "pg";
import { describe, expect, it } from "vitest";
import { readEnv } from "@/lib/env/registry";
import { storeKinds } from "@/lib/testing/stores";

// The store tests run on PostgreSQL only when JURY_TEST_DATABASE_URL is set. In CI (`CI` set, as
// every CI service sets it; .ci/run starts the server and sets the URL) they must never skip it
// quietly: this test fails instead. And a URL that is set must reach a server, here or anywhere.
const inCi = Boolean(process.env.CI?.trim()) && !/^(0|false|no)$/i.test(process.env.CI?.trim() ?? "");

describe("the store tests' PostgreSQL", () => {
  it("in CI, JURY_TEST_DATABASE_URL is set, so the store tests run on PostgreSQL too", () => {
    if (!inCi) return;
    expect(
      readEnv("JURY_TEST_DATABASE_URL"),
      "CI is set but JURY_TEST_DATABASE_URL is not: the PostgreSQL store tests would be skipped (.ci/run sets it)",
    ).toBeDefined();
    expect(storeKinds()).toEqual(["sqlite", "pg"]);
  });

  it("storeKinds: SQLite always, PostgreSQL when the URL is set", () => {
    expect(storeKinds({})).toEqual(["sqlite"]);
    expect(storeKinds({ JURY_TEST_DATABASE_URL: "postgres://u@h/db" })).toEqual(["sqlite", "pg"]);
  });

  it("a JURY_TEST_DATABASE_URL that is set reaches a server that answers", async () => {
    const url = readEnv("JURY_TEST_DATABASE_URL");
    if (!url) return;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    await client.connect();
    try {
      expect((await client.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });
});
