import { pathRole, roleAllows, type UserRole } from "@/lib/auth/roles";

export type NavLink = { href: string; label: string };

const ALL: NavLink[] = [
  { href: "/runs", label: "Runs" },
  { href: "/memory", label: "Memory study" },
  { href: "/reviews", label: "Reviews" },
  { href: "/agreement", label: "Agreement" },
  { href: "/criteria", label: "Criteria" },
  { href: "/settings", label: "Settings" },
  { href: "/audit", label: "Audit" },
];

/**
 * The main navigation's links for a role: those whose page the role may open (pathRole, the rule
 * proxy.ts enforces), so Settings and Audit show to admins only. No actor (the sign-in page): a
 * viewer's. Hiding is a courtesy; the server refuses the pages themselves.
 */
export function navLinks(role: UserRole | null | undefined): NavLink[] {
  return ALL.filter((l) => roleAllows(role ?? "viewer", pathRole(l.href)));
}
