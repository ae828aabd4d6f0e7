import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(__dirname) } },
  test: {
    include: [
      "lib/**/*.test.ts",
      "db/**/*.test.ts",
      "criteria/**/*.test.ts",
      "components/**/*.test.ts",
      "examples/**/*.test.ts",
    ],
    environment: "node",
    testTimeout: 30_000,
    pool: "forks",
  },
});
