import { useMutation, useQueryClient } from "@tanstack/react-query";
import { experimentQueries } from "./keys";
import { fetchJson } from "./fetch-json";

/** Starts the built-in demo experiment (SPROUT, demo policy, built-in suite). */
export function useStartDemo() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      fetchJson<{ id: string; firstTaskId: string | null }>("/api/experiments", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ preset: "demo" }),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: experimentQueries.all() }),
  });
}
