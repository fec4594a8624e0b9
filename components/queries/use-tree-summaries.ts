import { useEffect, useRef } from "react";
import { useQuery } from "@tanstack/react-query";
import { taskQueries } from "./keys";

/**
 * Turn summaries of a task's tree, fetched once `wantedTurnId` names a turn (the first
 * hover or keyboard move), and once more when it names a turn newer than what was fetched.
 */
export function useTreeSummaries(taskId: string, wantedTurnId: string | null): Record<string, string> | undefined {
  const { data, isFetching, refetch } = useQuery({ ...taskQueries.summaries(taskId), enabled: wantedTurnId !== null });
  const retried = useRef(new Set<string>());
  const missing = wantedTurnId !== null && data !== undefined && !(wantedTurnId in data);
  useEffect(() => {
    if (!missing || isFetching || wantedTurnId === null || retried.current.has(wantedTurnId)) return;
    retried.current.add(wantedTurnId);
    void refetch();
  }, [missing, isFetching, refetch, wantedTurnId]);
  return data;
}
