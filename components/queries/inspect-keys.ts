import { queryOptions, skipToken } from "@tanstack/react-query";
import type { TurnDetail } from "@/server/inspect/get-turn-detail";
import type { DiffAgainst, TurnDiff } from "@/server/inspect/turn-diff";
import type { RolloutComparison } from "@/server/inspect/compare-rollouts";
import { ApiError, fetchJson } from "./fetch-json";

/** A missing turn or rollout will not appear by asking again. */
const retryUnlessMissing = (failures: number, error: Error) => !(error instanceof ApiError && error.status === 404) && failures < 1;

/**
 * Keys of the inspector and compare views, all under ["tasks", taskId]; the
 * live-event hook refreshes turn details when a rollout ends, never diffs.
 */
export const inspectQueries = {
  turns: (taskId: string) => ["tasks", taskId, "turns"] as const,
  turn: (taskId: string, turnId: string | null) =>
    queryOptions({
      queryKey: [...inspectQueries.turns(taskId), turnId],
      queryFn: turnId ? () => fetchJson<TurnDetail>(`/api/turns/${encodeURIComponent(turnId)}`) : skipToken,
      retry: retryUnlessMissing,
    }),
  turnDiff: (taskId: string, turnId: string | null, against: DiffAgainst) =>
    queryOptions({
      queryKey: [...inspectQueries.turns(taskId), turnId, "diff", against],
      queryFn: turnId ? () => fetchJson<TurnDiff>(`/api/turns/${encodeURIComponent(turnId)}/diff?against=${against}`) : skipToken,
      retry: retryUnlessMissing,
      // A checkpoint never changes; only collection can take it away, which a live event's refetch picks up.
      staleTime: 60_000,
    }),
  compare: (taskId: string, a: string | null, b: string | null) =>
    queryOptions({
      queryKey: ["tasks", taskId, "compare", a, b],
      queryFn: a && b ? () => fetchJson<RolloutComparison>(`/api/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`) : skipToken,
      retry: retryUnlessMissing,
    }),
};
