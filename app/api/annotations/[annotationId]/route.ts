import { z } from "zod";
import { params, route } from "@/server/http/route";
import { deleteAnnotation } from "@/server/annotations/annotation-store";
import type { AnnotationId } from "@/server/db/ids";

export const DELETE = route(async (_req, context: { params: Promise<unknown> }) => {
  const { annotationId } = await params(context, z.object({ annotationId: z.string().min(1) }));
  await deleteAnnotation(annotationId as AnnotationId);
  return { deleted: annotationId };
});
