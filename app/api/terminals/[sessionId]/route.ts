import { z } from "zod";
import { params, route } from "@/server/http/route";
import { closeTerminal } from "@/server/terminal/terminal-manager";

/** End a terminal now: its shell and sandbox go; its saved turns stay. */
export const DELETE = route(async (_req, context: { params: Promise<unknown> }) => {
  const { sessionId } = await params(context, z.object({ sessionId: z.string().min(1) }));
  return { ended: await closeTerminal(sessionId) };
});
