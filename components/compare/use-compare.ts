import { useQuery } from "@tanstack/react-query";
import { inspectQueries } from "@/components/queries/inspect-keys";

export function useCompare(taskId: string, a: string | null, b: string | null) {
  return useQuery(inspectQueries.compare(taskId, a, b));
}
