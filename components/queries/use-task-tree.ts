import { useQuery } from "@tanstack/react-query";
import { taskQueries } from "./keys";

export function useTaskTree(taskId: string) {
  return useQuery(taskQueries.tree(taskId));
}
