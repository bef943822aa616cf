/**
 * The gateway's read methods and the position of their ReadOptions argument: for wrappers that
 * change how every read is made (always fresh for a before-image, one shared snapshot per preview).
 * A read method added to the Gateway must be listed here, or those wrappers would miss it.
 */
export const READ_OPTIONS_AT: Readonly<Record<string, number>> = {
  classicRead: 3,
  v2Read: 3,
  integrationList: 3,
  integrationGet: 3,
  integrationGlobalList: 2,
};
