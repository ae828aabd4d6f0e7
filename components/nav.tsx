"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const links = [
  { href: "/runs", label: "Runs" },
  { href: "/memory", label: "Memory study" },
  { href: "/reviews", label: "Reviews" },
  { href: "/criteria", label: "Criteria" },
  { href: "/settings", label: "Settings" },
];

export function Nav() {
  const path = usePathname();
  return (
    <nav aria-label="Main" className="flex gap-1">
      {links.map((l) => {
        const active = path === l.href || path.startsWith(`${l.href}/`);
        return (
          <Link
            key={l.href}
            href={l.href}
            aria-current={active ? "page" : undefined}
            className={`rounded px-3 py-1.5 text-sm ${active ? "bg-indigo-50 font-medium text-indigo-800" : "text-zinc-600 hover:bg-zinc-100"}`}
          >
            {l.label}
          </Link>
        );
      })}
    </nav>
  );
}
