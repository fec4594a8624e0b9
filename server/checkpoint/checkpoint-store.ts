import { db, type Db } from "../db/client";
import type { CheckpointId } from "../db/ids";
import type { CheckpointResult, DriverName, SandboxDriver } from "../sandbox/types";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * Record a driver checkpoint in the lineage. The parent row is `parentId` when the
 * caller knows it (the engine does: it is the previous turn's checkpoint), else it
 * is looked up by the parent's ref. Idempotent per (backend, ref).
 */
export async function recordCheckpoint(tx: Tx | Db, backend: DriverName, result: CheckpointResult, parentId?: CheckpointId | null): Promise<CheckpointId> {
  const parent = parentId !== undefined ? parentId : result.parentRef ? ((await tx.checkpoint.findUnique({ where: { backend_ref: { backend, ref: result.parentRef } }, select: { id: true } }))?.id ?? null) : null;
  const existing = await tx.checkpoint.findUnique({ where: { backend_ref: { backend, ref: result.ref } }, select: { id: true } });
  if (existing) return existing.id as CheckpointId;
  const row = await tx.checkpoint.create({
    data: { backend, ref: result.ref, parentId: parent, bytesAdded: BigInt(result.bytesAdded), durationMs: result.durationMs },
    select: { id: true },
  });
  return row.id as CheckpointId;
}

export interface CheckpointRef {
  id: CheckpointId;
  backend: DriverName;
  ref: string;
  state: "live" | "collected";
}

export async function getCheckpoint(id: CheckpointId): Promise<CheckpointRef | null> {
  const row = await db().checkpoint.findUnique({ where: { id }, select: { id: true, backend: true, ref: true, state: true } });
  return row ? { id: row.id as CheckpointId, backend: row.backend as DriverName, ref: row.ref, state: row.state as "live" | "collected" } : null;
}

/**
 * Remove the stored data of checkpoints no kept turn or rollout start needs. The
 * driver keeps whatever a kept checkpoint depends on (its lower layers, parent
 * images); the rows of what it removed are marked collected, never deleted, so the
 * lineage stays readable.
 */
export async function collectCheckpoints(driver: SandboxDriver): Promise<{ removed: number; bytesFreed: number }> {
  const client = db();
  const kept = await client.checkpoint.findMany({
    where: { backend: driver.name, state: "live", OR: [{ turn: { isNot: null } }, { startOf: { some: {} } }] },
    select: { ref: true },
  });
  const result = await driver.collect(kept.map((k) => k.ref));
  if (result.removed.length > 0) {
    await client.checkpoint.updateMany({
      where: { backend: driver.name, ref: { in: result.removed } },
      data: { state: "collected", collectedAt: new Date() },
    });
  }
  return { removed: result.removed.length, bytesFreed: result.bytesFreed };
}
