import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";

/** A started app; `output()` is everything it printed so far (stdout and stderr). */
export type AppProcess = ChildProcess & { output(): string };

/** Starts the app the way a user does (`npm start`) on its own port and database, for restart tests. */
export async function startApp(opts: {
  port: number;
  db: string;
  env?: Record<string, string>;
}): Promise<AppProcess> {
  const child = spawn("npm", ["start"], {
    env: {
      ...process.env,
      PORT: String(opts.port),
      JURY_DB: opts.db,
      NEXT_TELEMETRY_DISABLED: "1",
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let log = "";
  child.stdout?.on("data", (d) => (log += d));
  child.stderr?.on("data", (d) => (log += d));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`http://127.0.0.1:${opts.port}/`);
      if (r.ok || r.status === 401) return Object.assign(child, { output: () => log });
    } catch {}
    if (child.exitCode !== null) throw new Error(`app exited early:\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`app did not answer on ${opts.port}:\n${log}`);
}

export async function stopApp(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || !child.pid) return;
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid, "SIGTERM");
  await exited;
}

/** Local addresses (as "a.b.c.d") listening on a TCP port, read from /proc/net/tcp. */
export function listeningAddresses(port: number): string[] {
  const out: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== "0A") continue; // 0A = LISTEN
      const [addrHex, portHex] = cols[1].split(":");
      if (Number.parseInt(portHex, 16) !== port) continue;
      if (addrHex.length === 8) {
        const b = addrHex
          .match(/../g)!
          .map((h) => Number.parseInt(h, 16))
          .reverse();
        out.push(b.join("."));
      } else {
        out.push(
          addrHex === "00000000000000000000000000000000"
            ? "::"
            : addrHex === "0000000000000000FFFF00000100007F"
              ? "127.0.0.1"
              : `v6:${addrHex}`,
        );
      }
    }
  }
  return out;
}

const BUILD_ID = path.resolve(".next/BUILD_ID");
const MANIFEST = path.resolve(".next/server/server-reference-manifest.json");

/** Throws, naming the test, when there is no production build to start (`npm test` makes one). */
export function requireBuild(testFile: string): void {
  if (!fs.existsSync(BUILD_ID) || !fs.existsSync(MANIFEST))
    throw new Error(
      `${testFile} runs against the built server, and there is none: run \`npm run build\` first (\`npm test\` does).`,
    );
}

/** The id Next gave an exported server action, from the build's manifest. */
export function actionId(file: string, name: string): string {
  const manifest = JSON.parse(fs.readFileSync(MANIFEST, "utf8")) as {
    node: Record<string, { filename?: string; exportedName?: string }>;
  };
  const hit = Object.entries(manifest.node).find(([, a]) => a.filename === file && a.exportedName === name);
  if (!hit) throw new Error(`no action ${name} of ${file} in ${MANIFEST}: rebuild with \`npm run build\``);
  return hit[0];
}

/** A port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** One raw HTTP request to 127.0.0.1:port with exactly the headers given (a forged Host included). */
export function sendRaw(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: opts.method ?? "GET",
        path: opts.path,
        headers: { host: `127.0.0.1:${port}`, ...opts.headers },
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}
