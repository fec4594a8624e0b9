import { queryOptions } from "@tanstack/react-query";
import type { ExperimentSummary } from "@/server/experiments/experiment-store";
import type { ExperimentDetail } from "@/server/sprout/get-experiment";
import type { Task, TaskSummary } from "@/server/tasks/task-store";
import type { TaskTree } from "@/server/tree/tree-types";
import { fetchJson } from "./fetch-json";

/** Every query key of the app comes from here; server pushes invalidate by these prefixes. */
export const experimentQueries = {
  all: () => ["experiments"] as const,
  list: () => queryOptions({ queryKey: [...experimentQueries.all(), "list"], queryFn: () => fetchJson<ExperimentSummary[]>("/api/experiments") }),
  detail: (experimentId: string) =>
    queryOptions({
      queryKey: [...experimentQueries.all(), experimentId],
      queryFn: () => fetchJson<ExperimentDetail>(`/api/experiments/${encodeURIComponent(experimentId)}`),
    }),
};

export const taskQueries = {
  all: () => ["tasks"] as const,
  list: () => queryOptions({ queryKey: [...taskQueries.all(), "list"], queryFn: () => fetchJson<TaskSummary[]>("/api/tasks") }),
  detail: (taskId: string) =>
    queryOptions({ queryKey: [...taskQueries.all(), taskId], queryFn: () => fetchJson<Task>(`/api/tasks/${encodeURIComponent(taskId)}`) }),
  tree: (taskId: string) =>
    queryOptions({
      queryKey: [...taskQueries.all(), taskId, "tree"],
      queryFn: () => fetchJson<TaskTree>(`/api/tasks/${encodeURIComponent(taskId)}/tree`),
    }),
  /**
   * One line per turn, by turn id: hover cards ask for it, the first render never waits for it.
   * Not under the tree's key, so live updates do not refetch it; a hover on a newer turn does.
   */
  summaries: (taskId: string) =>
    queryOptions({
      queryKey: [...taskQueries.all(), taskId, "summaries"],
      queryFn: () => fetchJson<Record<string, string>>(`/api/tasks/${encodeURIComponent(taskId)}/summaries`),
    }),
};
