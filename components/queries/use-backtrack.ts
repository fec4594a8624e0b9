import { useMutation, useQueryClient } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";
import { taskQueries } from "./keys";

/** Starts one verifier-guided review round over the task's failed rollouts; its branches then grow in the tree. */
export function useBacktrack(taskId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (branches: number) =>
      fetchJson<{ reviewId: string; rollouts: string[]; skipped: string[] }>(`/api/tasks/${encodeURIComponent(taskId)}/backtrack`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ branches }),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: taskQueries.tree(taskId).queryKey }),
  });
}
