import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import {
  buttonClickSchema,
  parsePayload,
  slashCommandSchema,
  viewSubmissionSchema,
} from '../../src/slack/payloads.js';

const click = (userId: string) => ({
  user: { id: userId },
  actions: [{ action_id: 'approve', value: 'cr_x' }],
});
const command = (userId: string) => ({
  text: 'list_vlans',
  user_id: userId,
  channel_id: 'C1',
  trigger_id: 't',
  response_url: 'https://hooks.slack.com/commands/T1/1/x',
});
const submission = (userId: string) => ({
  user: { id: userId },
  view: { callback_id: 'tool_form', private_metadata: '{}', state: { values: {} } },
});

describe('Slack payloads: who clicked, typed or submitted', () => {
  it('accepts Slack user ids (U…, W…)', () => {
    for (const id of ['U0ALICE', 'W0ADMIN']) {
      expect(parsePayload(buttonClickSchema, click(id), 'action').user.id).toBe(id);
      expect(parsePayload(slashCommandSchema, command(id), 'command').user_id).toBe(id);
      expect(parsePayload(viewSubmissionSchema, submission(id), 'view').user.id).toBe(id);
    }
  });

  it('refuses anything else, a user-group id first of all, naming the field', () => {
    for (const id of ['S0APPROVERS', '<!channel>', 'u0alice', 'U0ALICE ', '']) {
      expect(() => parsePayload(buttonClickSchema, click(id), 'action')).toThrow(ValidationError);
      expect(() => parsePayload(slashCommandSchema, command(id), 'command')).toThrow(/command\.user_id/);
      expect(() => parsePayload(viewSubmissionSchema, submission(id), 'view')).toThrow(ValidationError);
    }
  });
});
