import { z } from "zod";
import { db } from "../db/client";
import type { AnnotationId, TurnId } from "../db/ids";
import { NotFoundError } from "../http/route";
import { publish } from "../runtime/events";

export const newAnnotation = z.object({
  label: z.string().trim().min(1, "a label is required").max(80),
  note: z.string().max(4000).default(""),
  author: z.string().trim().min(1).max(80).default("anonymous"),
});

export interface Annotation {
  id: AnnotationId;
  turnId: TurnId;
  label: string;
  note: string;
  author: string;
  createdAt: string;
}

export async function annotateTurn(turnId: TurnId, input: unknown): Promise<Annotation> {
  const data = newAnnotation.parse(input);
  const turn = await db().turn.findUnique({ where: { id: turnId }, select: { taskId: true, rolloutId: true } });
  if (!turn) throw new NotFoundError(`turn ${turnId} does not exist`);
  const row = await db().annotation.create({ data: { turnId, ...data } });
  publish({ type: "turn", taskId: turn.taskId, rolloutId: turn.rolloutId, turnId });
  return { id: row.id as AnnotationId, turnId, label: row.label, note: row.note, author: row.author, createdAt: row.createdAt.toISOString() };
}

export async function deleteAnnotation(id: AnnotationId): Promise<void> {
  const row = await db().annotation.findUnique({ where: { id }, select: { turn: { select: { id: true, taskId: true, rolloutId: true } } } });
  if (!row) throw new NotFoundError(`annotation ${id} does not exist`);
  await db().annotation.delete({ where: { id } });
  publish({ type: "turn", taskId: row.turn.taskId, rolloutId: row.turn.rolloutId, turnId: row.turn.id });
}
