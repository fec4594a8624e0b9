import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { TerminalInfo } from "@/server/terminal/terminal-protocol";
import { fetchJson } from "../queries/fetch-json";

export const terminalQueries = {
  all: () => ["terminals"] as const,
  list: () =>
    queryOptions({
      queryKey: [...terminalQueries.all(), "list"],
      queryFn: () => fetchJson<{ terminals: TerminalInfo[] }>("/api/terminals").then((r) => r.terminals),
    }),
};

/** The terminals running on the server (each page attaches to its own). */
export function useTerminals() {
  return useQuery(terminalQueries.list());
}

/** Restore a turn's checkpoint into a new terminal. */
export function useOpenTerminal() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (turnId: string) =>
      fetchJson<{ sessionId: string }>("/api/terminals", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ turnId }),
      }),
    onSettled: () => client.invalidateQueries({ queryKey: terminalQueries.all() }),
  });
}
