import { Suspense } from "react";
import { TerminalsClient } from "@/components/terminal/terminals-client";

export const dynamic = "force-dynamic";

export default function TerminalsRoute() {
  return (
    <Suspense>
      <TerminalsClient />
    </Suspense>
  );
}
