import { route } from "@/server/http/route";
import { listExperiments } from "@/server/experiments/experiment-store";

export const GET = route(() => listExperiments());
