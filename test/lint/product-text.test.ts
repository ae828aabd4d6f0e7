// Users never see the team's internal design documents: product text (docs, UI strings, errors,
// comments, the plugin) states each rule itself instead of citing them. This walks every text file
// a user can read or run and fails on a reference to them, naming the file and line.
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");
const FOLDERS = ["docs", "app", "components", "lib", "criteria", "bin", "claude-plugin", "db", "examples"];
const FILES = ["README.md"];
const TEXT = /\.(ts|tsx|mjs|cjs|js|json|md|sql|txt|css)$/;
const FORBIDDEN = /seed\s*0\d\d|seeds?\/\d{3}|the seeds?'s?\b(?! creates)/i;

function* walk(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (TEXT.test(e.name)) yield p;
  }
}

it("no product text refers to internal design documents", () => {
  const hits: string[] = [];
  const files = [
    ...FILES.map((f) => path.join(root, f)),
    ...FOLDERS.flatMap((d) => [...walk(path.join(root, d))]),
  ];
  for (const file of files) {
    fs.readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (FORBIDDEN.test(line))
          hits.push(`${path.relative(root, file)}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
  }
  expect(hits).toEqual([]);
});

it("the check catches a reference", () => {
  for (const s of ["as Seed 004 says", "(seed 000, D4)", "the seed's bands", "see seeds/002"])
    expect(FORBIDDEN.test(s), s).toBe(true);
  for (const s of ["the seed creates 200 products", "a seeded generator", "seed: 7"])
    expect(FORBIDDEN.test(s), s).toBe(false);
});
