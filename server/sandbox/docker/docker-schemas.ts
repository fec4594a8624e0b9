/** zod shapes of the Docker API responses the driver relies on (engine API 1.41); parse, don't cast. */
import { z } from "zod";

const labels = z.record(z.string(), z.string()).nullish().transform((l) => l ?? {});

export const containerInspect = z.object({
  Id: z.string(),
  Image: z.string(),
  State: z.object({ Running: z.boolean(), Status: z.string() }),
});

export const imageInspect = z.object({
  Id: z.string(),
  Parent: z.string().nullish().transform((p) => (p ? p : null)),
  Size: z.number(),
  Created: z.string(),
  RootFS: z.object({ Layers: z.array(z.string()).nullish().transform((l) => l ?? []) }),
  Config: z.object({ Labels: labels, WorkingDir: z.string().nullish() }).nullish(),
});
export type ImageInspect = z.infer<typeof imageInspect>;

export const imageHistory = z.array(z.object({ Id: z.string(), Size: z.number() }));

export const imageSummary = z.object({
  Id: z.string(),
  ParentId: z.string().nullish().transform((p) => (p ? p : null)),
  Size: z.number(),
  Created: z.number(),
  Labels: labels,
});
export const imageList = z.array(imageSummary);
export type ImageSummary = z.infer<typeof imageSummary>;

export const containerList = z.array(z.object({ Id: z.string(), Labels: labels }));

export const execInspect = z.object({
  Running: z.boolean(),
  ExitCode: z.number().nullable(),
  Pid: z.number(),
});

export const commitResult = z.object({ Id: z.string() });

/** One line of the JSON progress stream of POST /images/create?fromSrc=-; the last `status` is the new image id. */
export const importProgress = z.object({ status: z.string().optional(), error: z.string().optional() });
