import { useQuery } from "@tanstack/react-query";
import { inspectQueries } from "@/components/queries/inspect-keys";

export function useTurnDetail(taskId: string, turnId: string | null) {
  return useQuery(inspectQueries.turn(taskId, turnId));
}
