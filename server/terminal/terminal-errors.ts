import { ConflictError, NotFoundError } from "../http/route";

/** Every terminal slot is taken. */
export class TerminalsFullError extends ConflictError {
  override name = "TerminalsFullError";
}

/** The turn's checkpoint was collected (or made by another driver): nothing to restore. */
export class CheckpointUnavailableError extends ConflictError {
  override name = "CheckpointUnavailableError";
}

/** No such turn, or the turn has no checkpoint in this server's database. */
export class TerminalTurnNotFoundError extends NotFoundError {
  override name = "TerminalTurnNotFoundError";
}
