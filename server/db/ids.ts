/** Branded ids: a turn id cannot be passed where a checkpoint id is wanted. */
declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type TaskId = Brand<string, "TaskId">;
export type ExperimentId = Brand<string, "ExperimentId">;
export type RolloutId = Brand<string, "RolloutId">;
export type TurnId = Brand<string, "TurnId">;
export type CheckpointId = Brand<string, "CheckpointId">;
export type ReviewId = Brand<string, "ReviewId">;
export type AnnotationId = Brand<string, "AnnotationId">;
