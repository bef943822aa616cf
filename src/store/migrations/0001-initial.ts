import type { Migration } from './index.js';

/** The first schema: change requests, the journal and its head, replica leases, bot data. */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE netops_change_requests (
  id          text PRIMARY KEY,
  tool        text NOT NULL,
  site        text NOT NULL,
  requester   text NOT NULL,
  channel     text,
  state       text NOT NULL CHECK (state IN ('pending', 'approved', 'executing', 'succeeded', 'failed',
                                             'cancelled', 'expired', 'superseded', 'unknown')),
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  -- The replica that claimed it (set by the claim, kept afterwards for the record).
  owner       text,
  -- The whole request as the bot shows it; the columns above are what queries filter on.
  data        jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX netops_change_requests_listing ON netops_change_requests (created_at DESC, id DESC);
CREATE INDEX netops_change_requests_due ON netops_change_requests (state, expires_at);
CREATE INDEX netops_change_requests_requester ON netops_change_requests (requester, created_at DESC);

-- One row per event; line is the event's JSON text exactly as hashed (a line of approvals.jsonl).
CREATE TABLE netops_journal (
  seq         bigint PRIMARY KEY CHECK (seq > 0),
  at          timestamptz NOT NULL,
  request_id  text NOT NULL,
  type        text NOT NULL,
  line        text NOT NULL
);
CREATE INDEX netops_journal_request ON netops_journal (request_id, seq);

-- The end of the chain. Appends lock this one row, so appends from every replica form one chain.
CREATE TABLE netops_journal_head (
  id    smallint PRIMARY KEY CHECK (id = 1),
  seq   bigint NOT NULL,
  hash  text NOT NULL
);
INSERT INTO netops_journal_head (id, seq, hash) VALUES (1, 0, repeat('0', 64));

-- Live replicas: each renews its lease; runs owned by a replica whose lease lapsed become unknown.
CREATE TABLE netops_replicas (
  id           text PRIMARY KEY,
  host         text NOT NULL,
  pid          integer NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  lease_until  timestamptz NOT NULL
);

CREATE TABLE netops_bot_data (
  key         text PRIMARY KEY,
  value       jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
`,
};
