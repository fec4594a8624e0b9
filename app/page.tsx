import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { ExperimentList } from "@/components/home/experiment-list";
import { MethodChart } from "@/components/home/method-chart";
import { RunDemoButton } from "@/components/home/run-demo-button";
import { TaskList } from "@/components/home/task-list";
import { experimentQueries, taskQueries } from "@/components/queries/keys";
import { listExperiments } from "@/server/experiments/experiment-store";
import { listTasks } from "@/server/tasks/task-store";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  // Rendered with its data so the first paint is the real page, not a spinner.
  const queryClient = new QueryClient();
  const [experiments, tasks] = await Promise.all([listExperiments(), listTasks()]);
  queryClient.setQueryData(experimentQueries.list().queryKey, experiments);
  queryClient.setQueryData(taskQueries.list().queryKey, tasks);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <main className="mx-auto w-full max-w-6xl space-y-8 px-6 py-6">
        <RunDemoButton />
        <section>
          <h1 className="mb-2 text-base font-semibold">Experiments</h1>
          <ExperimentList />
        </section>
        <MethodChart />
        <section>
          <h2 className="mb-2 text-base font-semibold">Tasks</h2>
          <TaskList />
        </section>
      </main>
    </HydrationBoundary>
  );
}
