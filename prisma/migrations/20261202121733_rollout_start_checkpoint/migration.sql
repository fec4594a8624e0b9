-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Rollout" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "experimentId" TEXT,
    "taskId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "branchedFromTurnId" TEXT,
    "reviewId" TEXT,
    "round" INTEGER NOT NULL DEFAULT 0,
    "ordinal" INTEGER NOT NULL DEFAULT 0,
    "startingHint" TEXT,
    "startCheckpointId" TEXT,
    "seed" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "stopReason" TEXT,
    "reward" REAL,
    "partialScore" REAL,
    "verifierFeedback" TEXT,
    "error" TEXT,
    "steps" INTEGER NOT NULL DEFAULT 0,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "Rollout_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Rollout_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Rollout_branchedFromTurnId_fkey" FOREIGN KEY ("branchedFromTurnId") REFERENCES "Turn" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Rollout_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "Review" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Rollout_startCheckpointId_fkey" FOREIGN KEY ("startCheckpointId") REFERENCES "Checkpoint" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Rollout" ("branchedFromTurnId", "completionTokens", "createdAt", "error", "experimentId", "finishedAt", "id", "kind", "ordinal", "partialScore", "promptTokens", "reviewId", "reward", "round", "startedAt", "startingHint", "status", "steps", "stopReason", "taskId", "verifierFeedback") SELECT "branchedFromTurnId", "completionTokens", "createdAt", "error", "experimentId", "finishedAt", "id", "kind", "ordinal", "partialScore", "promptTokens", "reviewId", "reward", "round", "startedAt", "startingHint", "status", "steps", "stopReason", "taskId", "verifierFeedback" FROM "Rollout";
DROP TABLE "Rollout";
ALTER TABLE "new_Rollout" RENAME TO "Rollout";
CREATE INDEX "Rollout_taskId_idx" ON "Rollout"("taskId");
CREATE INDEX "Rollout_experimentId_idx" ON "Rollout"("experimentId");
CREATE INDEX "Rollout_branchedFromTurnId_idx" ON "Rollout"("branchedFromTurnId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

