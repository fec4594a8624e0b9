import { notFound } from "next/navigation";
import { preload } from "react-dom";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { TaskPage } from "@/components/tree/task-page";
import { taskQueries } from "@/components/queries/keys";
import { getTask } from "@/server/tasks/task-store";
import type { TaskId } from "@/server/db/ids";

export const dynamic = "force-dynamic";

export default async function TaskTreePage({ params }: { params: Promise<{ taskId: string }> }) {
  const { taskId } = await params;
  const task = await getTask(taskId as TaskId);
  if (!task) notFound();
  // The tree is not rendered into the page: the browser fetches it while it loads the page's
  // code (a preload the tree query then picks up), so the first byte does not wait for it and
  // its JSON is parsed once, not as a string inside the page's payload.
  preload(`/api/tasks/${encodeURIComponent(taskId)}/tree`, { as: "fetch", crossOrigin: "anonymous" });
  const queryClient = new QueryClient();
  // Dates become strings exactly as they do over the API.
  queryClient.setQueryData(taskQueries.detail(taskId).queryKey, JSON.parse(JSON.stringify(task)) as typeof task);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <TaskPage taskId={taskId} />
    </HydrationBoundary>
  );
}
