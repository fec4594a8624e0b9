import { notFound } from "next/navigation";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { TaskPage } from "@/components/tree/task-page";
import { taskQueries } from "@/components/queries/keys";
import { getTask } from "@/server/tasks/task-store";
import { getTaskTree } from "@/server/tree/get-task-tree";
import type { TaskId } from "@/server/db/ids";

export const dynamic = "force-dynamic";

export default async function TaskTreePage({ params }: { params: Promise<{ taskId: string }> }) {
  const { taskId } = await params;
  const [task, tree] = await Promise.all([getTask(taskId as TaskId), getTaskTree(taskId as TaskId)]);
  if (!task || !tree) notFound();
  const queryClient = new QueryClient();
  // Dates become strings exactly as they do over the API.
  queryClient.setQueryData(taskQueries.detail(taskId).queryKey, JSON.parse(JSON.stringify(task)) as typeof task);
  queryClient.setQueryData(taskQueries.tree(taskId).queryKey, tree);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <TaskPage taskId={taskId} />
    </HydrationBoundary>
  );
}
