import { BotError, type ErrorCode } from '../errors.js';

/**
 * A recorded console write that failed: the error that failed it, under that error's own code
 * (so exit codes and `--json` codes are the failure's), and the change that records it.
 */
export class RecordedFailure extends BotError {
  readonly code: ErrorCode;

  constructor(
    readonly error: BotError,
    readonly changeId: string,
  ) {
    super(error.message);
    this.code = error.code;
  }
}
