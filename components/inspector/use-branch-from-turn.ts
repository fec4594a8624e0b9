import { useMutation, useQueryClient } from "@tanstack/react-query";
import { fetchJson } from "@/components/queries/fetch-json";

/** POST /api/turns/:turnId/branches: resume new branches from this turn's checkpoint. */
export function useBranchFromTurn(taskId: string, turnId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { hint?: string; count?: number }) =>
      fetchJson<{ rollouts: string[] }>(`/api/turns/${encodeURIComponent(turnId)}/branches`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["tasks", taskId] }),
  });
}
