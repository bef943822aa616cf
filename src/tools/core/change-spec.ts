/**
 * What a write tool changes and how the bot reads it back and undoes it: the change spec a write
 * tool's definition carries. changes/ reads the object before and after through it, verifies the
 * after-image against `expected` and offers `inverse` as the Revert.
 */

import type { ToolContext } from './context.js';

/** A JSON object: arguments, results and images as changes/ handles them. */
export type Json = Record<string, unknown>;

/** One object to read: a read tool, its arguments, and which record of its answer is the object. */
export interface ImageRead {
  /** What the object is (`network`, `client`); an image names it `<kind> <its id>`. */
  kind: string;
  /** How the object is asked for (an id, a name, a MAC): its name in an image until it is read. */
  ref: string;
  tool: string;
  args: Json;
  /**
   * Reads the answer itself instead of a read tool (`tool` is then the source named in messages):
   * for state no read tool shows, such as a blocked client that is offline.
   */
  direct?: (context: ToolContext) => Promise<unknown>;
  /** The record in the read tool's answer (a list tool's answer is searched); undefined: it is gone. */
  select?: (answer: unknown) => Json | undefined;
  /** Keep only these fields (live counters and times would make every image differ). */
  pick?: readonly string[];
}

/** What the after-image must hold: fields and values, or `gone` (a delete). */
export type Expected = { kind: 'fields'; fields: Json } | { kind: 'gone' };

/** An inverse: the write that undoes a change, and what the preview should say about it. */
export interface InversePlan {
  tool: string;
  args: Json;
  notes: string[];
}

/** What an inverse is built from. */
export interface InverseInput {
  args: Json;
  preview: unknown;
  result: unknown;
  /** The object before the change (undefined when it could not be read). */
  before: Json | null | undefined;
  /** The object right after the change. */
  after: Json | null | undefined;
}

export interface ChangeSpec {
  kind: 'create' | 'update' | 'delete' | 'action';
  /** The object to read right before the write (none for a create: it does not exist yet). */
  beforeRead?(args: Json): ImageRead;
  /** The object to read right after the write; `before` is the before-image's object. */
  afterRead?(args: Json, result: unknown, before: Json | null | undefined): ImageRead | undefined;
  /** What the controller should hold afterwards. */
  expected?(args: Json, preview: unknown, result: unknown): Expected | undefined;
  /** The write that undoes the change, or why there is none. */
  inverse(input: InverseInput): InversePlan | { reason: string };
  /**
   * A create whose tool refuses a name already taken: where its object is found by the name it
   * was given, and the result that names it. A create cut off by a restart is read back there
   * (found, holding what was sent: applied; absent: not applied) instead of being left unknown.
   */
  createdByName?: { read(args: Json): ImageRead | undefined; result(object: Json): unknown };
}
