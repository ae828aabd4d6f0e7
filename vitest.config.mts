import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    include: [
      "lib/**/*.test.ts",
      "db/**/*.test.ts",
      "criteria/**/*.test.ts",
      "components/**/*.test.ts",
      "examples/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    environment: "node",
    testTimeout: 30_000,
    pool: "forks",
    globalSetup: ["lib/testing/global-setup.ts"],
    setupFiles: ["lib/testing/request-context.ts"],
  },
});
