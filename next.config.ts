import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  serverExternalPackages: ["better-sqlite3", "better-sqlite3-napi"],
  poweredByHeader: false,
};

export default nextConfig;
