import { z } from "zod";
import { params, jsonBody, route } from "@/server/http/route";
import { startBranchesFromTurn } from "@/server/sprout/start-branches";
import type { TurnId } from "@/server/db/ids";

export const POST = route(async (req, context: { params: Promise<unknown> }) => {
  const { turnId } = await params(context, z.object({ turnId: z.string().min(1) }));
  return Response.json(await startBranchesFromTurn(turnId as TurnId, await jsonBody(req)), { status: 202 });
});
