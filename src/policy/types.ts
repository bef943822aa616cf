/** The risk of a change, from what it does to the network (its blast radius). */
export type Risk = 'low' | 'medium' | 'high';

export const RISKS: readonly Risk[] = ['low', 'medium', 'high'];

/** Named things a change affects: how many, and the first few names. */
export interface AffectedSet {
  count: number;
  /** At most MAX_NAMES names, in a stable order. */
  names: string[];
}

/** An object that refers to the change's target, named so an admin can find it. */
export interface ImpactReference {
  kind: string;
  name: string;
  id: string;
  /**
   * False when removing the target also takes it out of this object (a zone loses a deleted
   * network): nothing is left pointing at nothing. Unset: it would dangle.
   */
  dangles?: boolean;
}

/**
 * What the tools layer gathers about a would-be write (the tools' `impact`, src/tools/core/assess.ts): read fresh from the
 * controller, never computed here. Every field is optional: a tool that touches no network has
 * no clients to count.
 */
export interface ImpactFacts {
  /** What the change touches, e.g. `network IoT (VLAN 20)`; absent when it is not known. */
  target?: string;
  /** The target's current record as the controller keeps it (the CEL variable `target`). */
  targetRecord?: Record<string, unknown>;
  /** Clients on the affected networks, Wi-Fi or devices now. */
  clients?: AffectedSet;
  /** Devices downstream of an affected device (or the device itself for a restart). */
  devices?: AffectedSet;
  /** Objects that refer to the target. */
  references?: ImpactReference[];
  /** The change removes the target (delete_*): references dangle unless they say otherwise. */
  removes?: boolean;
  /** Why the change cuts the bot's own path to the controller; absent when it does not. */
  selfLockout?: string;
  /** What could not be checked (a read that failed): never taken for "nothing". */
  unchecked?: string[];
}

/** The blast radius and risk of a change, as every face and the journal show it. */
export interface BlastRadius {
  risk: Risk;
  reasons: string[];
  clients: AffectedSet;
  devices: AffectedSet;
  references: ImpactReference[];
  selfLockout: boolean;
  /** The sentence shown in bold when selfLockout is true. */
  selfLockoutWarning?: string;
  unchecked: string[];
}

/** Who asks for a change, through which face, in which channel. */
export interface ChangeRequest {
  tool: string;
  args: Record<string, unknown>;
  requester: string;
  /** Slack channel id, or '' outside Slack. */
  channel: string;
  face: 'slack' | 'console' | 'mcp' | string;
  /** A step of a rollout: its shape, as the CEL variable `rollout` shows it. */
  rollout?: Record<string, unknown>;
}
