// Client components ship to the browser: nothing they import at run time (type-only imports load
// nothing) may reach zod, db/, the AI SDK or node-only modules. Walks dependency-cruiser's graph.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");

function clientFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...clientFiles(rel));
    else if (
      /\.tsx?$/.test(e.name) &&
      /^\s*["']use client["']/.test(fs.readFileSync(path.join(root, rel), "utf8"))
    )
      out.push(rel);
  }
  return out;
}

function isServerActions(file: string): boolean {
  const abs = path.join(root, file);
  return fs.existsSync(abs) && /^\s*["']use server["']/.test(fs.readFileSync(abs, "utf8"));
}

type Module = { source: string; dependencies: { resolved: string; dependencyTypes: string[] }[] };

it("no client component reaches zod, db/, the AI SDK or a node-only module at run time", () => {
  const roots = [...clientFiles("components"), ...clientFiles("app")];
  expect(roots.length).toBeGreaterThan(5);
  const r = spawnSync(
    process.execPath,
    [
      path.join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"),
      ...roots,
      "--config",
      ".dependency-cruiser.cjs",
      "--output-type",
      "json",
    ],
    { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
  );
  const graph = JSON.parse(r.stdout) as { modules: Module[] };
  const bySource = new Map(graph.modules.map((m) => [m.source, m]));
  const reached = new Map<string, string>(); // module → the client file it was reached from
  const queue = roots.map((f) => [f, f] as const);
  while (queue.length) {
    const [src, from] = queue.shift()!;
    if (reached.has(src)) continue;
    reached.set(src, from);
    // a server action module is a boundary: the browser gets references to its functions, not its code
    if (isServerActions(src)) continue;
    for (const d of bySource.get(src)?.dependencies ?? []) {
      if (d.dependencyTypes.some((t) => t === "type-only" || t === "pre-compilation-only")) continue;
      queue.push([d.resolved, from]);
    }
  }
  const banned = [...reached]
    .filter(([m]) =>
      /node_modules\/(zod|ai|@ai-sdk|better-sqlite3|drizzle-orm)\/|^db\/|^node:|^(fs|path|crypto|os)$/.test(
        m,
      ),
    )
    .map(([m, from]) => `${from} → ${m}`);
  expect(banned).toEqual([]);
});
