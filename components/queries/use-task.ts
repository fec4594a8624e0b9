import { useQuery } from "@tanstack/react-query";
import { taskQueries } from "./keys";

export function useTask(taskId: string) {
  return useQuery(taskQueries.detail(taskId));
}
