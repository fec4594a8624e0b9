import { z } from "zod";

/** Where a task's sandbox starts: the base filesystem and the commands that prepare it. */
export const environmentSpec = z.object({
  base: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("host") }),
    z.object({ kind: z.literal("rootfs"), path: z.string().min(1) }),
    z.object({ kind: z.literal("image"), ref: z.string().min(1) }),
  ]),
  /** shell commands run once in a new root's sandbox, after the files are copied */
  setup: z.array(z.string()).default([]),
  workdir: z.string().startsWith("/").default("/workspace"),
  /** a host directory (relative to the repo root, or absolute) whose files are copied into `workdir` at the start */
  workspaceDir: z.string().min(1).optional(),
  /** more host files or directories copied in before `setup` runs, in order (a Dockerfile's COPY lines) */
  copies: z.array(z.object({ from: z.string().min(1), to: z.string().startsWith("/") })).default([]),
  /** environment variables of every command in the sandbox (a Dockerfile's ENV lines) */
  env: z.record(z.string(), z.string()).default({}),
});
export type EnvironmentSpec = z.infer<typeof environmentSpec>;

/** How a task's final state is scored. */
export const verifierSpec = z.object({
  command: z.string().min(1),
  timeoutMs: z.number().int().positive().default(120_000),
  format: z.enum(["exit-code", "junit", "unittest"]).default("exit-code"),
  /** a host directory copied into /tests of the throw-away verification sandbox only: the agent never sees it */
  testsDir: z.string().min(1).optional(),
});
export type VerifierSpec = z.infer<typeof verifierSpec>;

export const taskSource = z.enum(["builtin", "imported", "seed"]);
export type TaskSource = z.infer<typeof taskSource>;

export const taskMetadata = z.record(z.string(), z.unknown()).default({});
