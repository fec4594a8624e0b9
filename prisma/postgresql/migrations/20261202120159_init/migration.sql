-- CreateTable
CREATE TABLE "Task" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "instruction" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "verifier" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "metadata" TEXT NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Experiment" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "config" TEXT NOT NULL DEFAULT '{}',
    "policy" TEXT NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "seed" BOOLEAN NOT NULL DEFAULT false,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Experiment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Rollout" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT,
    "taskId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "branchedFromTurnId" TEXT,
    "reviewId" TEXT,
    "round" INTEGER NOT NULL DEFAULT 0,
    "ordinal" INTEGER NOT NULL DEFAULT 0,
    "startingHint" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "stopReason" TEXT,
    "reward" DOUBLE PRECISION,
    "partialScore" DOUBLE PRECISION,
    "verifierFeedback" TEXT,
    "error" TEXT,
    "steps" INTEGER NOT NULL DEFAULT 0,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Rollout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Turn" (
    "id" TEXT NOT NULL,
    "rolloutId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "parentId" TEXT,
    "author" TEXT NOT NULL DEFAULT 'agent',
    "tool" TEXT,
    "summary" TEXT NOT NULL DEFAULT '',
    "exitCode" INTEGER,
    "isError" BOOLEAN NOT NULL DEFAULT false,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "modelMs" INTEGER NOT NULL DEFAULT 0,
    "execMs" INTEGER NOT NULL DEFAULT 0,
    "checkpointMs" INTEGER NOT NULL DEFAULT 0,
    "checkpointId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Turn_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TurnContent" (
    "turnId" TEXT NOT NULL,
    "assistantMessage" TEXT NOT NULL DEFAULT '',
    "toolCall" TEXT NOT NULL DEFAULT 'null',
    "observation" TEXT NOT NULL DEFAULT '',
    "messages" TEXT NOT NULL DEFAULT '[]',
    "logprobs" TEXT,

    CONSTRAINT "TurnContent_pkey" PRIMARY KEY ("turnId")
);

-- CreateTable
CREATE TABLE "Checkpoint" (
    "id" TEXT NOT NULL,
    "backend" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "parentId" TEXT,
    "bytesAdded" BIGINT NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL DEFAULT 'live',
    "durationMs" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "collectedAt" TIMESTAMP(3),

    CONSTRAINT "Checkpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Review" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT,
    "taskId" TEXT NOT NULL,
    "round" INTEGER NOT NULL DEFAULT 1,
    "config" TEXT NOT NULL DEFAULT '{}',
    "inputSummary" TEXT NOT NULL DEFAULT '',
    "prompt" TEXT NOT NULL DEFAULT '',
    "answer" TEXT NOT NULL DEFAULT '',
    "decision" TEXT NOT NULL DEFAULT '[]',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "error" TEXT,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Review_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Annotation" (
    "id" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Annotation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Task_name_key" ON "Task"("name");

-- CreateIndex
CREATE INDEX "Experiment_createdAt_idx" ON "Experiment"("createdAt");

-- CreateIndex
CREATE INDEX "Rollout_taskId_idx" ON "Rollout"("taskId");

-- CreateIndex
CREATE INDEX "Rollout_experimentId_idx" ON "Rollout"("experimentId");

-- CreateIndex
CREATE INDEX "Rollout_branchedFromTurnId_idx" ON "Rollout"("branchedFromTurnId");

-- CreateIndex
CREATE UNIQUE INDEX "Turn_checkpointId_key" ON "Turn"("checkpointId");

-- CreateIndex
CREATE INDEX "Turn_taskId_idx" ON "Turn"("taskId");

-- CreateIndex
CREATE INDEX "Turn_parentId_idx" ON "Turn"("parentId");

-- CreateIndex
CREATE UNIQUE INDEX "Turn_rolloutId_index_key" ON "Turn"("rolloutId", "index");

-- CreateIndex
CREATE INDEX "Checkpoint_parentId_idx" ON "Checkpoint"("parentId");

-- CreateIndex
CREATE UNIQUE INDEX "Checkpoint_backend_ref_key" ON "Checkpoint"("backend", "ref");

-- CreateIndex
CREATE INDEX "Review_taskId_idx" ON "Review"("taskId");

-- CreateIndex
CREATE INDEX "Annotation_turnId_idx" ON "Annotation"("turnId");

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_branchedFromTurnId_fkey" FOREIGN KEY ("branchedFromTurnId") REFERENCES "Turn"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "Review"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "Rollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Turn"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_checkpointId_fkey" FOREIGN KEY ("checkpointId") REFERENCES "Checkpoint"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TurnContent" ADD CONSTRAINT "TurnContent_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Checkpoint" ADD CONSTRAINT "Checkpoint_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Checkpoint"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Review" ADD CONSTRAINT "Review_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Review" ADD CONSTRAINT "Review_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Annotation" ADD CONSTRAINT "Annotation_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn"("id") ON DELETE CASCADE ON UPDATE CASCADE;

