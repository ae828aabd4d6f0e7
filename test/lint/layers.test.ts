// `npm run lint:layers` (part of npm run lint) must catch what the layering forbids: a component
// importing db/, and an import cycle. Probe files are written into the tree, checked, and removed.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");
const written: string[] = [];
function probe(rel: string, text: string): string {
  const file = path.join(root, rel);
  fs.writeFileSync(file, text);
  written.push(file);
  return rel;
}
afterEach(() => {
  for (const f of written.splice(0)) fs.rmSync(f, { force: true });
});

function cruise(files: string[]) {
  const r = spawnSync(
    process.execPath,
    [
      path.join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"),
      ...files,
      "--config",
      ".dependency-cruiser.cjs",
    ],
    { cwd: root, encoding: "utf8", timeout: 60_000 },
  );
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

it("fails on a component that imports db/", () => {
  const f = probe(
    "components/zz-lint-probe.tsx",
    'import { getDb } from "@/db/client";\nexport const probe = () => getDb();\n',
  );
  const r = cruise([f]);
  expect(r.code).not.toBe(0);
  expect(r.out).toContain("components-import-no-db");
});

it("fails on an import cycle, and on React imported by lib/", () => {
  const a = probe("lib/zz-cycle-a.ts", 'import { b } from "./zz-cycle-b";\nexport const a = () => b();\n');
  probe("lib/zz-cycle-b.ts", 'import { a } from "./zz-cycle-a";\nexport const b = (): unknown => a;\n');
  const c = probe("lib/zz-react.ts", 'import { useState } from "react";\nexport const c = useState;\n');
  const r = cruise([a, c]);
  expect(r.code).not.toBe(0);
  expect(r.out).toContain("no-circular");
  expect(r.out).toContain("lib-is-framework-free");
});

it("passes on the tree as it is", () => {
  const r = cruise(["lib", "db", "app", "components", "criteria", "bin"]);
  expect(r.out).toContain("no dependency violations");
  expect(r.code).toBe(0);
});
