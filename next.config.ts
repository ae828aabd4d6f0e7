import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  serverExternalPackages: ["better-sqlite3", "better-sqlite3-napi"],
  poweredByHeader: false,
  // .next/standalone holds the files the server needs, node_modules included: scripts/prepack.mjs
  // assembles the npm package's prebuilt dashboard from it (`jury ui` serves either build)
  output: "standalone",
};

export default nextConfig;
