import { useQuery } from "@tanstack/react-query";
import { inspectQueries } from "@/components/queries/inspect-keys";
import type { DiffAgainst } from "@/server/inspect/turn-diff";

export function useTurnDiff(taskId: string, turnId: string | null, against: DiffAgainst) {
  return useQuery(inspectQueries.turnDiff(taskId, turnId, against));
}
