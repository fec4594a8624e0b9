import { useMutation, useQueryClient } from "@tanstack/react-query";
import { fetchJson } from "@/components/queries/fetch-json";
import type { TurnAnnotation } from "@/server/inspect/get-turn-detail";

/** POST /api/turns/:turnId/annotations. */
export function useAddAnnotation(taskId: string, turnId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { label: string; note?: string; author?: string }) =>
      fetchJson<TurnAnnotation>(`/api/turns/${encodeURIComponent(turnId)}/annotations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["tasks", taskId] }),
  });
}
