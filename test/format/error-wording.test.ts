import { describe, expect, it } from 'vitest';
import { consoleErrorJson, consoleErrorText } from '../../src/console/error-text.js';
import { isBotError } from '../../src/errors.js';
import { mcpError, ProtocolError } from '../../src/mcp/error-text.js';
import { SlackStepError } from '../../src/slack/error-text.js';
import { JournalIntegrityError, JournalKeyError } from '../../src/store/file/journal.js';
import { ImportRefusedError } from '../../src/store/postgres/import.js';
import { StoreIntegrityError } from '../../src/store/postgres/journal-check.js';
import { captureLogger } from '../helpers/capture-logger.js';

// The store's, Slack's and the protocol's errors are BotErrors: the plain-text faces word them by
// their code, and none of them is logged as a bug under an "internal error" id.
const cases = [
  {
    error: new JournalIntegrityError('/data/approvals.jsonl', 7, 'its hash does not chain'),
    code: 'journal_invalid',
  },
  { error: new StoreIntegrityError('the chain head row is missing'), code: 'journal_invalid' },
  { error: new JournalKeyError('/data/approvals.jsonl'), code: 'config_invalid' },
  { error: new ImportRefusedError('the database already holds a journal'), code: 'conflict' },
  { error: new SlackStepError('post_preview', 'C0OPS', new Error('not_in_channel')), code: 'slack_refused' },
  {
    error: new ProtocolError(-32602, 'invalid params: params.uri: must be a string'),
    code: 'protocol_error',
  },
];

describe('plain-text wording of the store, Slack and protocol errors', () => {
  it.each(cases)(
    'words $code by its code at the console and over MCP, nothing logged as a bug',
    ({ error, code }) => {
      const { logger, lines } = captureLogger();
      expect(isBotError(error)).toBe(true);
      expect(error.code).toBe(code);

      const text = consoleErrorText(error, logger);
      expect(text).not.toMatch(/internal error/);
      expect(JSON.parse(consoleErrorJson(error, logger))).toMatchObject({ error: { code } });

      const mcp = mcpError(error, logger, 'confirm');
      expect(mcp.code).toBe(code);
      expect(mcp.message).not.toMatch(/internal error/);
      expect(lines().filter((l) => /unexpected error/.test(l.msg))).toEqual([]);
    },
  );

  it('says what failed verification, in the journal error’s own sentence', () => {
    const error = cases[0]?.error;
    const text = consoleErrorText(error, captureLogger().logger);
    expect(text).toMatch(
      /^approvals journal \/data\/approvals\.jsonl fails verification at line 7: its hash does not chain/,
    );
    expect(consoleErrorText(cases[1]?.error, captureLogger().logger)).toBe(cases[1]?.error.message);
  });
});

describe('ProtocolError on the wire', () => {
  it('hands the SDK its JSON-RPC code, message and data, while its own code is the bot’s', () => {
    const error = new ProtocolError(-32602, 'invalid params: params.uri: must be a string', { fields: [] });
    const wire = error.onTheWire();
    expect(error.code).toBe('protocol_error');
    expect(error.rpcCode).toBe(-32602);
    expect(wire).toBeInstanceOf(Error);
    expect(wire).toMatchObject({ code: -32602, message: error.message, data: { fields: [] } });
    expect('data' in new ProtocolError(-32002, 'no such resource').onTheWire()).toBe(false);
  });
});
