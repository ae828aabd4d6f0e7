// Entry of dist/ui-server.cjs, started by `jury ui`: Next's production server for a built dashboard.
// What the standalone output's server.js does, without its chdir: this process works in Jury's own
// folder (criteria, examples, dist/ are found from there) while Next serves the app folder given.
// Arguments: <app folder> <Jury's folder> <host> <port>.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

async function serve(): Promise<void> {
  const [app, root, hostname, port] = process.argv.slice(2);
  process.chdir(root);
  // the configuration as the build resolved it: no next.config.ts to compile at start
  const { config } = JSON.parse(
    fs.readFileSync(path.join(app, ".next", "required-server-files.json"), "utf8"),
  );
  Object.assign(process.env, { __NEXT_PRIVATE_STANDALONE_CONFIG: JSON.stringify(config) });
  // next as the app folder resolves it: the package's own copy beside the prebuilt app, or a checkout's
  const requireFromApp = createRequire(path.join(app, "package.json"));
  requireFromApp("next");
  const { startServer } = requireFromApp("next/dist/server/lib/start-server") as {
    startServer(o: Record<string, unknown>): Promise<void>;
  };
  await startServer({ dir: app, isDev: false, config, hostname, port: Number(port), allowRetry: false });
}

serve().catch((err) => {
  process.stderr.write(
    `jury ui: the server did not start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
