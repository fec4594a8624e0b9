import { z } from "zod";
import { params, route } from "@/server/http/route";
import { exportGroupsStream } from "@/server/sprout/export-groups";
import type { TaskId } from "@/server/db/ids";

export const GET = route(async (_req, context: { params: Promise<unknown> }) => {
  const { taskId } = await params(context, z.object({ taskId: z.string().min(1) }));
  return new Response(exportGroupsStream({ taskId: taskId as TaskId }), {
    headers: { "content-type": "application/x-ndjson", "content-disposition": `attachment; filename="groups-${taskId}.jsonl"` },
  });
});
