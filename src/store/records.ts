// The change-request types belong to the model, below the store and approvals; re-exported here for
// the modules that still name them by their old place.
export type * from '../model/change-request.js';
export {
  CHANGE_STATES,
  JOURNALED_DEADLINE_KINDS,
  JOURNALED_DEADLINE_STATES,
  SYSTEM_ACTOR,
} from '../model/change-request.js';
