"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { inspectQueries } from "./inspect-keys";
import { experimentQueries, taskQueries } from "./keys";

type LiveEvent = { type: "turn" | "rollout"; taskId: string; experimentId?: string | null } | { type: "experiment"; experimentId: string };

/**
 * Follows the server's event stream and invalidates what changed: the tree and
 * lists of the task a turn or rollout belongs to, turn details when a rollout
 * ends, and experiment queries. Views refetch only what they show; nothing polls.
 */
export function useLiveEvents(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const source = new EventSource("/api/events");
    source.onmessage = (message: MessageEvent<string>) => {
      let event: LiveEvent;
      try {
        event = JSON.parse(message.data) as LiveEvent;
      } catch {
        return;
      }
      if (event.type !== "experiment") {
        // Only what a new turn or a finished rollout changes: the tree and the task list. Turn details
        // and diffs do not change once written (their own mutations refresh them).
        void queryClient.invalidateQueries({ queryKey: taskQueries.tree(event.taskId).queryKey });
        void queryClient.invalidateQueries({ queryKey: taskQueries.list().queryKey });
        // A finished rollout changes its turns' details (status, reward, verifier feedback), not their diffs.
        if (event.type === "rollout") {
          void queryClient.invalidateQueries({
            queryKey: inspectQueries.turns(event.taskId),
            predicate: (q) => !q.queryKey.includes("diff"),
          });
        }
      }
      if (event.type !== "turn") void queryClient.invalidateQueries({ queryKey: experimentQueries.all() });
    };
    return () => source.close();
  }, [queryClient]);
}
