import { EventEmitter } from "node:events";
import { singleton } from "./singleton";

/** What changed, so that live views (server-sent events) know which queries to refresh. */
export type WorkbenchEvent =
  | { type: "turn"; taskId: string; rolloutId: string; turnId: string }
  | { type: "rollout"; taskId: string; rolloutId: string; status: string; experimentId: string | null }
  | { type: "experiment"; experimentId: string; status: string };

const bus = singleton("events", () => {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return emitter;
});

export function publish(event: WorkbenchEvent): void {
  bus.emit("event", event);
}

export function subscribe(listener: (event: WorkbenchEvent) => void): () => void {
  bus.on("event", listener);
  return () => bus.off("event", listener);
}
