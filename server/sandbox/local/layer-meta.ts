import { z } from "zod";

/** A layer ref: 16 lowercase hex digits. Anything else is rejected before it reaches a path. */
export const LAYER_REF = /^[0-9a-f]{16}$/;

/** The base a layer chain sits on: its overlay lower dirs (relative to the data dir, or absolute). */
export const baseInfoSchema = z.object({
  id: z.string().min(1),
  lowers: z.array(z.string().min(1)).min(1),
  /** host bases: the hidden paths, to rebuild the mask layer (it lives on the helper's tmpfs). */
  hidden: z.array(z.string()).optional(),
});
export type BaseInfo = z.infer<typeof baseInfoSchema>;

/** layers/<ref>/meta.json: written by the helper just before the layer dir gets its final name. */
export const layerMetaSchema = z.object({
  v: z.literal(1),
  id: z.string().regex(LAYER_REF),
  parent: z.string().regex(LAYER_REF).nullable(),
  depth: z.number().int().min(1),
  base: baseInfoSchema,
  createdAt: z.string(),
  bytes: z.number().int().min(0),
  apparentBytes: z.number().int().min(0),
});
export type LayerMeta = z.infer<typeof layerMetaSchema>;

/** squashes/<top>-L<level>/meta.json: a merged equivalent of the K^level layers ending at `top`. */
export const squashMetaSchema = z.object({
  v: z.literal(1),
  top: z.string().regex(LAYER_REF),
  level: z.number().int().min(1),
  count: z.number().int().min(2),
  createdAt: z.string(),
});
export type SquashMeta = z.infer<typeof squashMetaSchema>;
