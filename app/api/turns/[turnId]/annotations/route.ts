import { z } from "zod";
import { params, jsonBody, route } from "@/server/http/route";
import { annotateTurn } from "@/server/annotations/annotation-store";
import type { TurnId } from "@/server/db/ids";

export const POST = route(async (req, context: { params: Promise<unknown> }) => {
  const { turnId } = await params(context, z.object({ turnId: z.string().min(1) }));
  return Response.json(await annotateTurn(turnId as TurnId, await jsonBody(req)), { status: 201 });
});
