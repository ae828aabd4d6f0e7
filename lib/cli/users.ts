import os from "node:os";
import type { Db } from "@/db/client";
import { countUsersByRole, getUserByName, listUsers, setUserRole } from "@/db/queries/users";
import { userRoles } from "../auth/roles";
import { addUser, badUserName, removeUser, rotateUser } from "../auth/users";
import { JuryError } from "../errors";
import { type CommandSpec, flag, formatHelp, oneOf, parseCommand } from "./args";

/**
 * `jury users add|list|remove|rotate|role`: the dashboard's people. Whoever can run `jury` on the
 * store's machine (or reach its PostgreSQL) manages them, so the first admin is added here.
 */
export const USERS_COMMANDS = {
  add: {
    name: "users add",
    args: "<name>",
    summary:
      "Adds a user and prints their personal token once (it is stored only as a hash: copy it now). They sign in with it at /sign-in, or send it as `Authorization: Bearer <token>`.",
    options: {
      role: {
        ...oneOf(
          userRoles,
          "viewer: read; annotator: also label, run, import; admin: also settings, promote, users (default annotator)",
        ),
        bad: "owner",
      },
    },
    positionals: { min: 1, max: 1 },
  },
  list: {
    name: "users list",
    summary: "Lists users: name, role, who added them and when (never their tokens).",
    options: { json: flag("print JSON") },
  },
  remove: {
    name: "users remove",
    args: "<name>",
    summary:
      "Removes a user: their token and sign-in sessions stop working at once. Their labels keep their name.",
    options: { force: flag("remove the last admin even though others remain") },
    positionals: { min: 1, max: 1 },
  },
  rotate: {
    name: "users rotate",
    args: "<name>",
    summary: "Gives a user a new token (printed once); the old one and their sessions stop working at once.",
    options: {},
    positionals: { min: 1, max: 1 },
  },
  role: {
    name: "users role",
    args: "<name> <viewer|annotator|admin>",
    summary: "Changes a user's role; it holds from their next request.",
    options: { force: flag("demote the last admin even though others remain") },
    positionals: { min: 2, max: 2 },
  },
} satisfies Record<string, CommandSpec>;

export const USERS_HELP = `Usage: jury users <command>

The dashboard's people: each has a name, a role and a personal token (stored only as a hash).

Commands:
  add <name> [--role R]  add a user (role viewer, annotator or admin; default annotator); prints their token once
  list [--json]          every user with their role (never a token)
  remove <name>          remove a user; their token stops working at once
  rotate <name>          a new token for a user (printed once); the old one stops working
  role <name> <role>     change a user's role

With no users and no JURY_ACCESS_TOKEN the dashboard is one person's; once a user exists, everyone
signs in. Roles and the access token: docs/security.md.

jury users <command> --help for its options.
`;

/** Who the CLI acts as in the audit log and on what it makes: the OS user running it. */
export function cliActor(): string {
  try {
    return `${os.userInfo().username} (cli)`;
  } catch {
    return "cli";
  }
}

export async function usersCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(USERS_HELP);
    return 0;
  }
  if (!Object.hasOwn(USERS_COMMANDS, sub))
    throw new JuryError(
      "usage",
      `Unknown users command "${sub}": use add, list, remove, rotate or role (see jury users --help)`,
    );
  const spec = USERS_COMMANDS[sub as keyof typeof USERS_COMMANDS] as CommandSpec;
  const { values, positionals, help } = parseCommand(spec, rest);
  if (help) {
    process.stdout.write(formatHelp(spec));
    return 0;
  }
  const { getDb } = await import("@/db/client");
  const db: Db = getDb();
  const by = cliActor();
  const name = positionals[0];
  if (sub === "list") {
    const users = await listUsers(db);
    if (values.json) process.stdout.write(`${JSON.stringify(users, null, 2)}\n`);
    else if (users.length === 0)
      process.stdout.write(
        "No users: the dashboard is one person's (or the access token's). Add one: jury users add <name> --role admin\n",
      );
    else
      for (const u of users)
        process.stdout.write(
          `${u.name}\t${u.role}\tadded ${u.createdAt.toISOString()}${u.createdBy ? ` by ${u.createdBy}` : ""}${u.rotatedAt ? `\ttoken rotated ${u.rotatedAt.toISOString()}` : ""}\n`,
        );
    return 0;
  }
  if (sub === "add") {
    const bad = badUserName(name);
    if (bad) throw new JuryError("usage", `jury users add: ${bad}`);
    const role = (values.role as (typeof userRoles)[number] | undefined) ?? "annotator";
    const added = await addUser(db, name, role, by);
    if (!added)
      throw new JuryError(
        "usage",
        `jury users add: a user named "${name}" already exists (jury users rotate "${name}" gives them a new token)`,
      );
    printToken(name, role, added.token);
    return 0;
  }
  if (sub === "rotate") {
    const rotated = await rotateUser(db, name, by);
    if (!rotated)
      throw new JuryError("not_found", `jury users rotate: no user named "${name}" (jury users list)`);
    printToken(name, null, rotated.token);
    return 0;
  }
  if (sub === "remove") {
    if (!values.force) await refuseLastAdmin(db, "remove", name, null);
    if (!(await removeUser(db, name, by)))
      throw new JuryError("not_found", `jury users remove: no user named "${name}" (jury users list)`);
    process.stdout.write(`Removed ${name}: their token and sessions no longer work.\n`);
    if ((await listUsers(db)).length === 0 && !process.env.JURY_ACCESS_TOKEN)
      process.stderr.write(
        "No users are left and JURY_ACCESS_TOKEN is not set: the dashboard is one person's again, open to whoever reaches it on this machine.\n",
      );
    return 0;
  }
  // role
  const role = positionals[1];
  if (!(userRoles as readonly string[]).includes(role))
    throw new JuryError(
      "usage",
      `jury users role: the role must be one of ${userRoles.join(", ")}, got "${role}"`,
    );
  if (!values.force) await refuseLastAdmin(db, "role", name, role);
  if (!(await setUserRole(db, name, role as (typeof userRoles)[number], by)))
    throw new JuryError("not_found", `jury users role: no user named "${name}" (jury users list)`);
  process.stdout.write(`${name} is now ${role}.\n`);
  return 0;
}

/**
 * Removing or demoting the only admin while other users remain leaves a dashboard where nobody can
 * change settings, promote or manage users: refused (a usage error) unless --force.
 */
async function refuseLastAdmin(
  db: Db,
  sub: "remove" | "role",
  name: string,
  to: string | null,
): Promise<void> {
  if (to === "admin") return;
  const user = await getUserByName(db, name);
  if (user?.role !== "admin") return;
  const counts = Object.fromEntries((await countUsersByRole(db)).map((c) => [c.role, c.n]));
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  if ((counts.admin ?? 0) === 1 && total > 1)
    throw new JuryError(
      "usage",
      `jury users ${sub}: ${name} is the last admin; without one nobody can change settings, promote or manage users from the dashboard. Make someone else admin first (jury users role <name> admin), or pass --force.`,
    );
}

function printToken(name: string, role: string | null, token: string): void {
  process.stderr.write(
    `${role ? `Added ${name} (${role}).` : `New token for ${name}; the old one no longer works.`} Their token, shown once (it is stored only as a hash):\n`,
  );
  process.stdout.write(`${token}\n`);
}
