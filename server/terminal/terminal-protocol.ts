import { z } from "zod";

/**
 * The terminal WebSocket: /ws/terminal?session=<id> attaches to a running terminal (POST /api/terminals
 * opens one), /ws/terminal?turn=<turnId> opens one on the turn's checkpoint and attaches in the same
 * round trip (its `ready` names the new terminal; a refusal comes as `refused`, then close code 4409).
 * Output travels as binary frames; everything else as JSON text frames. The page acknowledges output it has rendered (`ack`, cumulative bytes),
 * which is how a slow page slows the shell down instead of queueing in memory.
 */
export const clientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("input"), data: z.string().max(256 * 1024) }),
  z.object({ type: z.literal("resize"), cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) }),
  z.object({ type: z.literal("save") }),
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("ack"), bytes: z.number().int().min(0) }),
  z.object({ type: z.literal("close") }),
]);
export type ClientMessage = z.infer<typeof clientMessage>;

/** What a terminal is, as the page and GET /api/terminals see it. */
export interface TerminalInfo {
  id: string;
  turnId: string;
  turnIndex: number;
  taskId: string;
  taskName: string;
  createdAt: string;
  attached: boolean;
  /** the human rollout its saves went to, null before the first save */
  humanRolloutId: string | null;
  saves: { turnId: string; index: number }[];
}

export type ServerMessage =
  | { type: "ready"; terminal: TerminalInfo; replayBytes: number }
  | { type: "refused"; message: string }
  | { type: "saving" }
  | { type: "saved"; turnId: string; index: number; rolloutId: string }
  | { type: "error"; message: string }
  | { type: "exit"; code: number }
  | { type: "ended"; reason: string }
  | { type: "pong" };
