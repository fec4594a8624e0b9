import { z } from "zod";
import { NotFoundError, params, route } from "@/server/http/route";
import { getExperiment } from "@/server/sprout/get-experiment";
import type { ExperimentId } from "@/server/db/ids";

export const GET = route(async (_req, context: { params: Promise<unknown> }) => {
  const { experimentId } = await params(context, z.object({ experimentId: z.string().min(1) }));
  const experiment = await getExperiment(experimentId as ExperimentId);
  if (!experiment) throw new NotFoundError(`experiment ${experimentId} does not exist`);
  return experiment;
});
