import { StepUp } from './step-up.js';
import { readUsersFile } from './users-file.js';

/**
 * The step-up parts `createApp` needs when an identity provider is configured: main.ts imports this
 * module only then, so a bot without one loads neither the OpenID client nor the YAML parser.
 */
export const identityKit = { StepUp, readUsersFile };

export type IdentityKit = typeof identityKit;
