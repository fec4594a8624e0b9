import { z } from "zod";
import { NotFoundError, route } from "@/server/http/route";
import { compareRollouts } from "@/server/inspect/compare-rollouts";
import type { RolloutId } from "@/server/db/ids";

const query = z.object({ a: z.string().min(1), b: z.string().min(1) });

export const GET = route(async (req) => {
  const { a, b } = query.parse(Object.fromEntries(new URL(req.url).searchParams));
  const comparison = await compareRollouts(a as RolloutId, b as RolloutId);
  if (!comparison) throw new NotFoundError(`rollout ${a} or ${b} does not exist`);
  return comparison;
});
