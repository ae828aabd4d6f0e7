import { defineConfig } from "drizzle-kit";

/**
 * The PostgreSQL migrations (JURY_DATABASE_URL), from db/pg/schema.ts, which scripts/gen-pg-schema.mjs
 * generates from db/schema.ts: `npx drizzle-kit generate --config drizzle.pg.config.ts --name <name>`.
 */
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/pg/schema.ts",
  out: "./db/migrations-pg",
  casing: "snake_case",
});
