-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN     "seed" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "startCheckpointId" TEXT;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_startCheckpointId_fkey" FOREIGN KEY ("startCheckpointId") REFERENCES "Checkpoint"("id") ON DELETE SET NULL ON UPDATE CASCADE;

