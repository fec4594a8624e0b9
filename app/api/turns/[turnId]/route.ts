import { z } from "zod";
import { NotFoundError, params, route } from "@/server/http/route";
import { getTurnDetail } from "@/server/inspect/get-turn-detail";
import type { TurnId } from "@/server/db/ids";

export const GET = route(async (_req, context: { params: Promise<unknown> }) => {
  const { turnId } = await params(context, z.object({ turnId: z.string().min(1) }));
  const turn = await getTurnDetail(turnId as TurnId);
  if (!turn) throw new NotFoundError(`turn ${turnId} does not exist`);
  return turn;
});
