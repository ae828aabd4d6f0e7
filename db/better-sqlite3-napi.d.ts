// better-sqlite3 13, installed under this name (package.json): the same API as version 12's types.
declare module "better-sqlite3-napi" {
  import Database from "better-sqlite3";
  export = Database;
}
