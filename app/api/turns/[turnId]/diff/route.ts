import { z } from "zod";
import { NotFoundError, params, route } from "@/server/http/route";
import { getTurnDiff } from "@/server/inspect/turn-diff";
import type { TurnId } from "@/server/db/ids";

const query = z.object({ against: z.enum(["parent", "start"]).default("parent") });

export const GET = route(async (req, context: { params: Promise<unknown> }) => {
  const { turnId } = await params(context, z.object({ turnId: z.string().min(1) }));
  const { against } = query.parse(Object.fromEntries(new URL(req.url).searchParams));
  const diff = await getTurnDiff(turnId as TurnId, against);
  if (!diff) throw new NotFoundError(`turn ${turnId} does not exist`);
  return diff;
});
