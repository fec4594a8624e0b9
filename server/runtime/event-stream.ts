import { subscribe } from "./events";

const HEARTBEAT_MS = 15_000;

/**
 * Server-sent events of everything that changes (turns, rollouts, experiments).
 * Bursts are coalesced per animation-sized window so a busy experiment does not
 * flood the page; the client only invalidates queries, it never polls.
 */
export function eventStream(signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let pending = new Map<string, string>();
      let timer: NodeJS.Timeout | null = null;
      const flush = () => {
        timer = null;
        const batch = [...pending.values()];
        pending = new Map();
        if (batch.length > 0) controller.enqueue(encoder.encode(batch.map((e) => `data: ${e}\n\n`).join("")));
      };
      const unsubscribe = subscribe((event) => {
        const key = event.type === "experiment" ? `e:${event.experimentId}` : `${event.type}:${event.rolloutId}`;
        pending.set(key, JSON.stringify(event));
        timer ??= setTimeout(flush, 100);
      });
      const heartbeat = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS);
      controller.enqueue(encoder.encode("retry: 2000\n\n"));
      cleanup = () => {
        unsubscribe();
        clearInterval(heartbeat);
        if (timer) clearTimeout(timer);
      };
      signal.addEventListener("abort", () => {
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
    cancel() {
      cleanup();
    },
  });
}
