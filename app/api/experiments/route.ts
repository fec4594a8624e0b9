import { jsonBody, route } from "@/server/http/route";
import { listExperiments } from "@/server/experiments/experiment-store";
import { startNewExperiment } from "@/server/sprout/start-experiment";

export const GET = route(() => listExperiments());

export const POST = route(async (req) => Response.json(await startNewExperiment(await jsonBody(req)), { status: 202 }));
