"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import type { NavLink } from "./nav-links";

/**
 * The main navigation: a row of links from 640 px up; on a phone a "Menu" button that folds the
 * links out under the header (and folds them back once a link is followed). The layout picks the
 * links for the actor's role (navLinks).
 */
export function Nav({ links }: { links: NavLink[] }) {
  const path = usePathname();
  const [open, setOpen] = useState(false);
  // a followed link closes the menu
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation, by design
  useEffect(() => setOpen(false), [path]);
  return (
    <nav aria-label="Main" className="sm:flex-1">
      <button
        type="button"
        className="inline-flex items-center gap-1 rounded border border-zinc-300 px-3 py-1.5 text-sm text-zinc-700 hover:bg-zinc-100 sm:hidden"
        aria-expanded={open}
        aria-controls="main-nav-links"
        data-testid="nav-toggle"
        onClick={() => setOpen((o) => !o)}
      >
        <span aria-hidden>{open ? "×" : "☰"}</span> Menu
      </button>
      <ul
        id="main-nav-links"
        className={`${open ? "flex" : "hidden"} absolute inset-x-0 top-full z-20 flex-col gap-1 border-b border-zinc-200 bg-white p-2 shadow-sm sm:static sm:flex sm:flex-row sm:border-0 sm:p-0 sm:shadow-none`}
      >
        {links.map((l) => {
          const active = path === l.href || path.startsWith(`${l.href}/`);
          return (
            <li key={l.href}>
              <Link
                href={l.href}
                aria-current={active ? "page" : undefined}
                className={`block rounded px-3 py-2 text-sm sm:py-1.5 ${active ? "bg-indigo-50 font-medium text-indigo-800" : "text-zinc-700 hover:bg-zinc-100"}`}
              >
                {l.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
