import { ApprovalPeople } from '../../src/approvals/people.js';
import { silentLogger } from '../../src/log.js';
import { Gate } from '../../src/policy/gate.js';

/** A gate over approval variables that restrict nobody: the policy alone decides. */
export function openGate(): Gate {
  return new Gate(
    new ApprovalPeople({
      approvers: [],
      allowSelfApproval: false,
      requesters: [],
      writeChannels: [],
      groupMembers: async () => [],
      logger: silentLogger(),
    }),
  );
}
