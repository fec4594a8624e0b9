/**
 * Zod schemas of the built-in task suite's files. The rollout engine reuses
 * ToolCallSchema / SproutTaskFileSchema to drive the deterministic demo policy,
 * so they are the contract between the task files and the policy.
 */
import { z } from "zod";

/** Tool calls address files by their sandbox path; anything outside /workspace would escape what a checkpoint restores for the task. */
const workspacePath = z
  .string()
  .regex(/^\/workspace(\/[^\0]*)?$/, "path must be absolute under /workspace")
  .refine((p) => !p.split("/").includes(".."), "path must not contain '..'");

/** The assistant text a real agent would write before the call (shown in the turn, fed to the context). */
const thought = z.string().min(1).optional();

export const BashCallSchema = z.strictObject({ tool: z.literal("bash"), command: z.string().min(1), thought });
export const ViewCallSchema = z.strictObject({ tool: z.literal("view"), path: workspacePath, thought });
export const CreateCallSchema = z.strictObject({
  tool: z.literal("create"),
  path: workspacePath,
  content: z.string(),
  thought,
});
export const EditCallSchema = z.strictObject({
  tool: z.literal("edit"),
  path: workspacePath,
  // Empty old_str would match everywhere, so an edit could never be "exactly once".
  old_str: z.string().min(1),
  new_str: z.string(),
  thought,
});
export const SubmitCallSchema = z.strictObject({ tool: z.literal("submit"), thought });

export const ToolCallSchema = z.discriminatedUnion("tool", [
  BashCallSchema,
  ViewCallSchema,
  CreateCallSchema,
  EditCallSchema,
  SubmitCallSchema,
]);
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const MistakeSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "mistake id must be kebab-case"),
  /** Index into `reference`: the actions run instead of that step, then the policy continues at atStep + 1. */
  atStep: z.number().int().min(0),
  description: z.string().min(1),
  // A mistake that submits would end the trajectory early; the point is that the policy carries on.
  actions: z.array(ToolCallSchema.refine((c) => c.tool !== "submit", "mistake actions must not submit")).min(1),
  /** What the verifier output shows when the mistake stays uncorrected (fed to the backtracking analyst). */
  symptom: z.string().min(1),
  /** unittest method names expected to FAIL/ERROR; lets the suite check the symptom is the real cause. */
  failingTests: z.array(z.string().min(1)).min(1).optional(),
});
export type Mistake = z.infer<typeof MistakeSchema>;

export const SproutTaskFileSchema = z
  .strictObject({
    reference: z.array(ToolCallSchema).min(10).max(40),
    mistakes: z.array(MistakeSchema).min(2),
  })
  .superRefine((file, ctx) => {
    const last = file.reference.length - 1;
    file.reference.forEach((call, i) => {
      if ((call.tool === "submit") !== (i === last)) {
        ctx.addIssue({ code: "custom", path: ["reference", i], message: "submit must be the last reference step, and only there" });
      }
    });
    const seen = new Set<string>();
    file.mistakes.forEach((m, i) => {
      if (seen.has(m.id)) ctx.addIssue({ code: "custom", path: ["mistakes", i, "id"], message: `duplicate mistake id ${m.id}` });
      seen.add(m.id);
      // Replacing the submit step would leave nothing to continue with.
      if (m.atStep >= last) {
        ctx.addIssue({ code: "custom", path: ["mistakes", i, "atStep"], message: `atStep must be < ${last} (the submit step)` });
      }
    });
  });
export type SproutTaskFile = z.infer<typeof SproutTaskFileSchema>;

/** The subset of Harbor's task.toml that the built-in tasks use. */
export const TaskTomlSchema = z.object({
  version: z.string().optional(),
  metadata: z.object({
    author_name: z.string().optional(),
    author_email: z.string().optional(),
    difficulty: z.enum(["easy", "medium", "hard"]),
    category: z.string().min(1),
    tags: z.array(z.string().min(1)).min(1),
  }),
  verifier: z.object({ timeout_sec: z.number().positive() }),
  agent: z.object({ timeout_sec: z.number().positive() }),
  environment: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});
export type TaskToml = z.infer<typeof TaskTomlSchema>;
