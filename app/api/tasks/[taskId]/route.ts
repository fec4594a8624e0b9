import { z } from "zod";
import { NotFoundError, params, route } from "@/server/http/route";
import { getTask } from "@/server/tasks/task-store";
import type { TaskId } from "@/server/db/ids";

export const GET = route(async (_req, context: { params: Promise<unknown> }) => {
  const { taskId } = await params(context, z.object({ taskId: z.string().min(1) }));
  const task = await getTask(taskId as TaskId);
  if (!task) throw new NotFoundError(`task ${taskId} does not exist`);
  return task;
});
