import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { Nav } from "@/components/nav";
import { navLinks } from "@/components/nav-links";
import { UserMenu } from "@/components/user-menu";
import { currentActor } from "./guard";
import "./globals.css";

export const metadata: Metadata = {
  title: "Jury — measure your LLM judges",
  description: "Panels of judge models, every sample, consensus, and the configuration that measured best.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const actor = await currentActor();
  return (
    <html lang="en">
      <body>
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-30 focus:rounded focus:bg-white focus:px-3 focus:py-1.5 focus:text-sm focus:shadow"
        >
          Skip to content
        </a>
        <header className="relative border-b border-zinc-200 bg-white">
          <div className="mx-auto flex max-w-6xl items-center justify-between gap-6 px-4 py-2 sm:justify-start">
            <Link href="/" className="shrink-0 text-lg font-semibold tracking-tight">
              ⚖︎ Jury
            </Link>
            <Nav links={navLinks(actor?.role)} />
            <UserMenu actor={actor} />
          </div>
        </header>
        <main id="main" className="mx-auto max-w-6xl px-4 py-6">
          {children}
        </main>
      </body>
    </html>
  );
}
