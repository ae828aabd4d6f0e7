import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { installRoot, resolveDbPath } from "@/db/path";
import { readEnv } from "../env/registry";
import { ACCESS_TOKEN_ENV } from "../env/secrets";
import { JuryError } from "../errors";
import { EXIT } from "../exit-codes";
import { type CommandSpec, formatHelp, int, parseCommand, text } from "./args";

export const UI: CommandSpec = {
  name: "ui",
  summary:
    "Serves the dashboard (prebuilt in the package; in a checkout, `npm run build` builds it) and prints its URL; Ctrl-C stops it.",
  options: {
    port: int("<n>", 1, 65535, "the port (default: PORT, else 3000)"),
    host: text(
      "<address>",
      "where to listen (default: JURY_HOST, else 127.0.0.1); anything but loopback needs JURY_ACCESS_TOKEN",
    ),
  },
  notes: `The database is JURY_DB, else the default one (jury db migrate prints where it is).
Requests must name this server (its address, localhost, 127.0.0.1 or [::1]) or a host listed in
JURY_ALLOWED_HOSTS; anything but loopback answers only requests carrying JURY_ACCESS_TOKEN.`,
};

const LOOPBACK = (host: string) => host === "localhost" || host === "::1" || /^127\./.test(host);
/** Same shape as parseHostPort in lib/http/request-guard.ts: name, name:port, [v6] or [v6]:port. */
const HOST_ENTRY = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(:\d{1,5})?$/;

/**
 * The rules every way of serving the dashboard follows (`jury ui`, `npm start`): loopback unless a
 * token of at least 16 characters is set, JURY_ALLOWED_HOSTS well formed. Returns the warning to print
 * when the server answers only for its own address.
 */
export function checkServeRules(
  host: string,
  port: number,
  env: Record<string, string | undefined>,
): string | null {
  const token = env[ACCESS_TOKEN_ENV];
  if (!LOOPBACK(host) && !token)
    throw new JuryError(
      "usage",
      `refusing to listen on ${host} without ${ACCESS_TOKEN_ENV}. Set it (a long random string) or use JURY_HOST=127.0.0.1.`,
    );
  if (token && token.length < 16)
    throw new JuryError("usage", `${ACCESS_TOKEN_ENV} must be at least 16 characters.`);
  const bad = (env.JURY_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e && !HOST_ENTRY.test(e));
  if (bad.length)
    throw new JuryError(
      "usage",
      `JURY_ALLOWED_HOSTS has entries that are not host or host:port: ${bad.map((e) => JSON.stringify(e)).join(", ")}.`,
    );
  if (!LOOPBACK(host) && !env.JURY_ALLOWED_HOSTS)
    return `answering requests for ${host}:${port} and loopback only; to reach this server by another name or address, list it in JURY_ALLOWED_HOSTS.`;
  return null;
}

/**
 * The built dashboard: a checkout's own build (.next/ beside package.json) when there is one, else the
 * package's prebuilt copy (dashboard/, assembled by scripts/prepack.mjs).
 */
export function dashboardDir(root: string): string {
  for (const dir of [root, path.join(root, "dashboard")])
    if (fs.existsSync(path.join(dir, ".next", "BUILD_ID"))) return dir;
  throw new JuryError(
    "usage",
    `The dashboard is not built (no .next/BUILD_ID under ${root} or ${path.join(root, "dashboard")}). In a checkout, run npm run build.`,
  );
}

const urlHost = (host: string) => (host.includes(":") ? `[${host}]` : host);

/** Resolves once something accepts connections on host:port, or rejects when `stop` says to. */
async function waitForPort(host: string, port: number, stopped: () => boolean): Promise<boolean> {
  const connectHost = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  while (!stopped()) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: connectHost, port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

export async function uiCommand(argv: string[]): Promise<number> {
  const { values, help } = parseCommand(UI, argv);
  if (help) {
    process.stdout.write(formatHelp(UI));
    return 0;
  }
  const env = process.env;
  const host = (values.host as string | undefined) ?? readEnv("JURY_HOST");
  const port = (values.port as number | undefined) ?? readEnv("PORT");
  const warning = checkServeRules(host, port, env);
  if (warning) process.stderr.write(`jury: ${warning}\n`);
  const root = installRoot();
  const app = dashboardDir(root);
  const server = path.join(root, "dist", "ui-server.cjs");
  const child = spawn(process.execPath, [server, app, root, host, String(port)], {
    stdio: "inherit",
    env: {
      NEXT_TELEMETRY_DISABLED: "1",
      ...env,
      NODE_ENV: "production",
      // proxy.ts reads the bound address and port from these at request time
      JURY_HOST: host,
      PORT: String(port),
      // resolved here, where the install root is known: the server runs from its own folder
      JURY_DB: path.resolve(resolveDbPath(env)),
    },
  });
  let signalled = false;
  let exited = false;
  const forward = (sig: NodeJS.Signals) => {
    signalled = true;
    if (!exited) child.kill(sig);
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  const done = new Promise<number>((resolve) => {
    child.on("exit", (code, signal) => {
      exited = true;
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      if (signalled) {
        process.stderr.write("jury ui: stopped.\n");
        resolve(EXIT.pass);
      } else resolve(code === 0 ? EXIT.pass : signal || code ? EXIT.infrastructure : EXIT.pass);
    });
  });
  if (await waitForPort(host, port, () => exited))
    process.stdout.write(`Jury dashboard: http://${urlHost(host)}:${port}/ (Ctrl-C stops it)\n`);
  return done;
}
