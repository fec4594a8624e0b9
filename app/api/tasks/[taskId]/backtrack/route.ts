import { z } from "zod";
import { params, jsonBody, route } from "@/server/http/route";
import { backtrackTask } from "@/server/sprout/start-branches";
import type { TaskId } from "@/server/db/ids";

export const POST = route(async (req, context: { params: Promise<unknown> }) => {
  const { taskId } = await params(context, z.object({ taskId: z.string().min(1) }));
  return Response.json(await backtrackTask(taskId as TaskId, await jsonBody(req)), { status: 202 });
});
