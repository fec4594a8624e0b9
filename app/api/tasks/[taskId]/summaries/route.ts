import { z } from "zod";
import { NotFoundError, params, route } from "@/server/http/route";
import { getTreeSummaries } from "@/server/tree/get-task-tree";
import type { TaskId } from "@/server/db/ids";

export const GET = route(async (_req, context: { params: Promise<unknown> }) => {
  const { taskId } = await params(context, z.object({ taskId: z.string().min(1) }));
  const summaries = await getTreeSummaries(taskId as TaskId);
  if (!summaries) throw new NotFoundError(`task ${taskId} does not exist`);
  return summaries;
});
