import { useMutation, useQueryClient } from "@tanstack/react-query";
import { fetchJson } from "@/components/queries/fetch-json";

/** DELETE /api/annotations/:id. */
export function useDeleteAnnotation(taskId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (annotationId: string) => fetchJson<unknown>(`/api/annotations/${encodeURIComponent(annotationId)}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["tasks", taskId] }),
  });
}
