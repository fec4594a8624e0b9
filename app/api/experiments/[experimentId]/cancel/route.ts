import { z } from "zod";
import { params, route } from "@/server/http/route";
import { cancelExperiment } from "@/server/runtime/background";
import type { ExperimentId } from "@/server/db/ids";

export const POST = route(async (_req, context: { params: Promise<unknown> }) => {
  const { experimentId } = await params(context, z.object({ experimentId: z.string().min(1) }));
  return Promise.resolve({ cancelled: cancelExperiment(experimentId as ExperimentId) });
});
