// `npm start`: serves the dashboard on 127.0.0.1:3000 unless JURY_HOST / PORT say otherwise.
// Binding anything but loopback requires JURY_ACCESS_TOKEN, which the server then checks on every request.
import { spawn } from "node:child_process";

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
const child = spawn("npx", ["next", "start", "--hostname", host, "--port", port], {
  stdio: "inherit",
  env: { NEXT_TELEMETRY_DISABLED: "1", ...process.env },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
