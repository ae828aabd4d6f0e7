// Recreates an empty PostgreSQL database (the e2e suite's PostgreSQL pass starts each server on one):
//   node scripts/pg-reset.mjs postgres://user@host:5432/name
// Connects to the same server's `postgres` database, drops `name` (closing its sessions) and creates it.
import pg from "pg";

const url = process.argv[2];
if (!url || !/^postgres(ql)?:\/\//.test(url)) {
  console.error("usage: node scripts/pg-reset.mjs postgres://user@host:5432/name");
  process.exit(2);
}
const target = new URL(url);
const name = decodeURIComponent(target.pathname.slice(1));
if (!/^[a-z0-9_]+$/.test(name)) {
  console.error(`pg-reset: refusing database name "${name}" (only a-z, 0-9 and _)`);
  process.exit(2);
}
const admin = new URL(url);
admin.pathname = "/postgres";
const client = new pg.Client({ connectionString: admin.toString() });
await client.connect();
try {
  await client.query(`drop database if exists "${name}" with (force)`);
  await client.query(`create database "${name}"`);
} finally {
  await client.end();
}
