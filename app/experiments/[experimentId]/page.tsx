import { notFound } from "next/navigation";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { ExperimentPage } from "@/components/experiments/experiment-page";
import { experimentQueries, taskQueries } from "@/components/queries/keys";
import { getExperiment } from "@/server/sprout/get-experiment";
import { listTasks } from "@/server/tasks/task-store";
import type { ExperimentId } from "@/server/db/ids";

export const dynamic = "force-dynamic";

export default async function ExperimentRoute({ params }: { params: Promise<{ experimentId: string }> }) {
  const { experimentId } = await params;
  const [experiment, tasks] = await Promise.all([getExperiment(experimentId as ExperimentId), listTasks()]);
  if (!experiment) notFound();
  const queryClient = new QueryClient();
  queryClient.setQueryData(experimentQueries.detail(experimentId).queryKey, experiment);
  queryClient.setQueryData(taskQueries.list().queryKey, tasks);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <ExperimentPage experimentId={experimentId} />
    </HydrationBoundary>
  );
}
