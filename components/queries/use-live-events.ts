"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { experimentQueries, taskQueries } from "./keys";

type LiveEvent = { type: "turn" | "rollout"; taskId: string; experimentId?: string | null } | { type: "experiment"; experimentId: string };

/**
 * Follows the server's event stream and invalidates what changed: the tree and
 * lists of the task a turn or rollout belongs to, and experiment queries. Views
 * refetch only what they show; nothing polls.
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
        void queryClient.invalidateQueries({ queryKey: [...taskQueries.all(), event.taskId] });
        void queryClient.invalidateQueries({ queryKey: taskQueries.list().queryKey });
      }
      if (event.type !== "turn") void queryClient.invalidateQueries({ queryKey: experimentQueries.all() });
    };
    return () => source.close();
  }, [queryClient]);
}
