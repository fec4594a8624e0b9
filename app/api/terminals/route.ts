import { z } from "zod";
import { jsonBody, route } from "@/server/http/route";
import type { TurnId } from "@/server/db/ids";
import { listTerminals, openTerminal } from "@/server/terminal/terminal-manager";

export const dynamic = "force-dynamic";

export const GET = route(() => Promise.resolve({ terminals: listTerminals() }));

export const POST = route(async (req) => {
  const { turnId } = z.object({ turnId: z.string().min(1) }).parse(await jsonBody(req));
  return Response.json(await openTerminal(turnId as TurnId), { status: 201 });
});
