import { ConfigError } from '../errors.js';

/** One thing wrong in a policy file: where (1-based line, when known), in which rule, and what. */
export interface PolicyProblem {
  line?: number;
  rule?: string;
  message: string;
}

/**
 * POLICY_FILE cannot be used: it does not parse, breaks the schema, or a rule's condition does not
 * type-check. A ConfigError (code `config_invalid`): the bot refuses to start with it, every face
 * words it once, and nothing falls back to a default policy.
 */
export class PolicyFileError extends ConfigError {
  constructor(
    readonly file: string,
    readonly problems: PolicyProblem[],
  ) {
    super(
      problems.map((p) => ({
        field: 'POLICY_FILE',
        rule: `${file}${p.line ? `:${p.line}` : ''}: ${p.rule ? `rule "${p.rule}": ` : ''}${p.message}`,
      })),
    );
  }

  /** The first problem's line, for callers that show one. */
  get line(): number | undefined {
    return this.problems[0]?.line;
  }
}
