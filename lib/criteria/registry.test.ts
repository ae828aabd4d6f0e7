import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lengthOk, llmDefinition, testRegistry, writeJson } from "../testing/fixtures";
import { loadCriteria } from "./registry";

describe("criteria registry", () => {
  it("loads good definitions and names the folder and field of each broken one", () => {
    const { dir } = testRegistry({
      unknown_type: { ...llmDefinition("unknown_type"), type: "vibes" },
      no_template: (() => {
        const { prompt_template: _p, ...rest } = llmDefinition("no_template");
        return rest;
      })(),
      bad_threshold: llmDefinition("bad_threshold", [1, 10], 12),
      wrong_id: llmDefinition("something_else"),
      no_logic: {
        id: "no_logic",
        type: "deterministic",
        name: "x",
        version: "1",
        description: "x",
        scoring: { scale: [0, 1], default_threshold: 1 },
        function: "missingFn",
      },
    });
    fs.mkdirSync(path.join(dir, "bad_json"));
    fs.writeFileSync(path.join(dir, "bad_json", "definition.json"), '{"id": "bad_json", ');
    const { criteria, errors } = loadCriteria(dir, { short: { lengthOk } });
    expect([...criteria.keys()].sort()).toEqual(["brief", "helpful", "short"]);
    const by = (folder: string) => errors.filter((e) => e.folder === folder);
    expect(by("bad_json")[0]).toMatchObject({
      field: "definition.json",
      message: expect.stringMatching(/invalid JSON/),
    });
    expect(by("unknown_type")[0]).toMatchObject({
      field: "type",
      message: expect.stringMatching(/"llm" or "deterministic"/),
    });
    expect(by("no_template")[0]).toMatchObject({ field: "prompt_template" });
    expect(by("bad_threshold")[0]).toMatchObject({
      field: "scoring.default_threshold",
      message: expect.stringMatching(/inside scale/),
    });
    expect(by("wrong_id")[0]).toMatchObject({ field: "id", message: expect.stringMatching(/folder name/) });
    expect(by("no_logic")[0]).toMatchObject({
      field: "function",
      message: expect.stringMatching(/missingFn/),
    });
  });

  it("a folder without definition.json is reported, not fatal", () => {
    const { dir } = testRegistry();
    fs.mkdirSync(path.join(dir, "empty"));
    writeJson(path.join(dir, "empty", "README.md"), "nothing");
    const { criteria, errors } = loadCriteria(dir, { short: { lengthOk } });
    expect(criteria.size).toBe(3);
    expect(errors).toEqual([{ folder: "empty", field: "definition.json", message: "missing" }]);
  });
  it("a function named like an Object.prototype member (constructor, hasOwnProperty) fails at load, naming the folder and field", () => {
    const det = (id: string, fn: string) => ({
      id,
      type: "deterministic",
      name: id,
      version: "1",
      description: "x",
      scoring: { scale: [0, 1], default_threshold: 1 },
      function: fn,
    });
    const { dir } = testRegistry({
      ctor: det("ctor", "constructor"),
      own: det("own", "hasOwnProperty"),
      tostr: det("tostr", "toString"),
      proto: det("proto", "__proto__"),
      constructor: det("constructor", "lengthOk"),
    });
    // a logic module with the functions the names would otherwise reach through the prototype
    const { criteria, errors } = loadCriteria(dir, {
      short: { lengthOk },
      ctor: { lengthOk },
      own: {},
      tostr: {},
      proto: {},
    });
    for (const id of ["ctor", "own", "tostr", "proto", "constructor"]) {
      expect(criteria.has(id), id).toBe(false);
      expect(
        errors.find((e) => e.folder === id),
        id,
      ).toMatchObject({
        field: "function",
        message: expect.stringMatching(/is not exported by/),
      });
    }
  });
});
