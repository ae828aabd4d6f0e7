// `npm start`: serves the dashboard on 127.0.0.1:3000 unless JURY_HOST / PORT say otherwise.
// Binding anything but loopback requires JURY_ACCESS_TOKEN, which the server then checks on every request.
// The server answers only requests whose Host is the bound address, localhost, 127.0.0.1 or [::1] with
// the bound port, or a name listed in JURY_ALLOWED_HOSTS (proxy.ts): a DNS-rebinding page gets 421.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const host = process.env.JURY_HOST || "127.0.0.1";
const port = process.env.PORT || "3000";
const loopback = host === "localhost" || host === "::1" || /^127\./.test(host);
if (!loopback && !process.env.JURY_ACCESS_TOKEN) {
  console.error(
    `jury: refusing to listen on ${host} without JURY_ACCESS_TOKEN. Set it (a long random string) or use JURY_HOST=127.0.0.1.`,
  );
  process.exit(2);
}
if (process.env.JURY_ACCESS_TOKEN && process.env.JURY_ACCESS_TOKEN.length < 16) {
  console.error("jury: JURY_ACCESS_TOKEN must be at least 16 characters.");
  process.exit(2);
}
// Same shape as parseHostPort in lib/http/request-guard.ts: name, name:port, [v6] or [v6]:port.
const badHosts = (process.env.JURY_ALLOWED_HOSTS ?? "")
  .split(",")
  .map((e) => e.trim())
  .filter((e) => e && !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(:\d{1,5})?$/.test(e));
if (badHosts.length) {
  console.error(
    `jury: JURY_ALLOWED_HOSTS has entries that are not host or host:port: ${badHosts.map((e) => JSON.stringify(e)).join(", ")}.`,
  );
  process.exit(2);
}
if (!loopback && !process.env.JURY_ALLOWED_HOSTS) {
  console.error(
    `jury: answering requests for ${host}:${port} and loopback only; to reach this server by another name or address, list it in JURY_ALLOWED_HOSTS.`,
  );
}
// Next's own bin run by this node, not through npx and a shell: a signal sent to this process reaches
// the server itself, so `kill -TERM` of `npm start` does not leave the server running.
const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
const child = spawn(process.execPath, [nextBin, "start", "--hostname", host, "--port", port], {
  stdio: "inherit",
  // proxy.ts reads the bound address and port from these at request time
  env: { NEXT_TELEMETRY_DISABLED: "1", ...process.env, JURY_HOST: host, PORT: port },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
