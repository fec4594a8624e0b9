import { z } from "zod";
import { jsonBody, route } from "@/server/http/route";
import type { TurnId } from "@/server/db/ids";
import { listTerminals, openTerminal } from "@/server/terminal/terminal-manager";

export const dynamic = "force-dynamic";

export const GET = route(() => Promise.resolve({ terminals: listTerminals() }));

export const POST = route(async (req) => {
  const { turnId } = z.object({ turnId: z.string().min(1) }).parse(await jsonBody(req));
  const { sessionId, timings } = await openTerminal(turnId as TurnId);
  const serverTiming = Object.entries(timings).map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`).join(", ");
  return Response.json({ sessionId }, { status: 201, headers: { "server-timing": serverTiming } });
});
