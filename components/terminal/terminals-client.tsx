"use client";

import dynamic from "next/dynamic";

/** xterm.js and sessionStorage exist only in the browser. */
export const TerminalsClient = dynamic(() => import("./terminals-page").then((m) => m.TerminalsPage), {
  ssr: false,
  loading: () => <p className="px-3 py-6 text-zinc-500">Loading the terminal…</p>,
});
