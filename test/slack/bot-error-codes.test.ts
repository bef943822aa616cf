import { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../src/mcp/error-text.js';
import { SlackStepError, slackErrorText } from '../../src/slack/error-text.js';
import { JournalIntegrityError } from '../../src/store/file/journal.js';
import { StoreIntegrityError } from '../../src/store/postgres/journal-check.js';
import { captureLogger } from '../helpers/capture-logger.js';

// Slack words the store's and Slack's own errors by their codes too; the journal's file or
// database stays in the log, out of the channel.
describe('slackErrorText by code for the journal and Slack', () => {
  it('says the journal fails verification without naming its file, and logs no bug', () => {
    const { logger, lines } = captureLogger();
    const file = slackErrorText(
      new JournalIntegrityError('/srv/netops/data/approvals.jsonl', 3, 'bad MAC'),
      logger,
    );
    const database = slackErrorText(new StoreIntegrityError('the chain head row is missing'), logger);
    for (const text of [file, database]) {
      expect(text).toMatch(
        /^:rotating_light: The approvals journal fails verification: nothing was recorded or run\./,
      );
      expect(text).not.toMatch(/\/srv|approvals\.jsonl|chain head|Internal error/);
    }
    expect(lines().filter((l) => /unexpected error/.test(l.msg))).toEqual([]);
  });

  it('still words a refused step by the step and logs Slack’s answer as a warning', () => {
    const { logger, lines } = captureLogger();
    const refused = new webApi.WebAPIPlatformError({ ok: false, error: 'is_archived' });
    const text = slackErrorText(new SlackStepError('upload_file', 'C0OPS', refused), logger);
    expect(text).toBe(
      ':warning: The file could not be posted in <#C0OPS>: the channel is archived (Slack: `is_archived`); try again in a minute.',
    );
    expect(lines()).toEqual([
      expect.objectContaining({ msg: 'Slack refused a call', step: 'upload_file', channel: 'C0OPS' }),
    ]);
  });

  it('words a protocol error by its message', () => {
    const text = slackErrorText(
      new ProtocolError(-32602, 'invalid params: params.uri: must be a string'),
      captureLogger().logger,
    );
    expect(text).toBe(':warning: Invalid params: params.uri: must be a string');
  });
});
