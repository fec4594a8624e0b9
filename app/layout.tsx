import type { Metadata } from "next";
import Link from "next/link";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: "SPROUT Workbench",
  description: "Run, see and steer snapshot-based rollouts of coding agents",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-screen flex-col text-sm">
        <header className="flex h-11 shrink-0 items-center gap-6 border-b border-zinc-200 px-4 dark:border-zinc-800">
          <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight">
            <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden>
              <path d="M3 15 L9 9 L15 3 M9 9 L15 12" stroke="currentColor" strokeWidth="1.6" fill="none" />
              <circle cx="3" cy="15" r="2" fill="var(--color-running)" />
              <circle cx="15" cy="3" r="2" fill="var(--color-failed)" />
              <circle cx="15" cy="12" r="2" fill="var(--color-resolved)" />
            </svg>
            SPROUT Workbench
          </Link>
          <nav className="flex gap-4 text-zinc-600 dark:text-zinc-400">
            <Link href="/" className="hover:text-zinc-900 dark:hover:text-zinc-100">
              Experiments &amp; tasks
            </Link>
          </nav>
        </header>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
