import type { NextConfig } from "next";
import { readEnv } from "./lib/env/registry";

// The import form's upload limit (JURY_UPLOAD_MAX_BYTES), plus room for the form's other fields and
// the multipart framing: the form checks the files' sizes against the limit itself and says so, so
// this body limit is only reached by a request that skipped the form.
const uploadBody = readEnv("JURY_UPLOAD_MAX_BYTES") + 1024 * 1024;

const nextConfig: NextConfig = {
  serverExternalPackages: ["better-sqlite3", "better-sqlite3-napi", "pg"],
  poweredByHeader: false,
  // .next/standalone holds the files the server needs, node_modules included: scripts/prepack.mjs
  // assembles the npm package's prebuilt dashboard from it (`jury ui` serves either build)
  output: "standalone",
  experimental: {
    serverActions: { bodySizeLimit: uploadBody },
    // proxy.ts runs on every request and reads a copy of its body: the same limit
    proxyClientMaxBodySize: uploadBody,
  },
};

export default nextConfig;
