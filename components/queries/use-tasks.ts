import { useQuery } from "@tanstack/react-query";
import { taskQueries } from "./keys";

export function useTasks() {
  return useQuery(taskQueries.list());
}
