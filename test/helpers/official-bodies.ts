import { DEMO_ZONES } from '../../src/simulator/index.js';

/**
 * An official policy destination that uses both address kinds and both port kinds: the one
 * the simulator and the policy model both take as their whole example.
 */
export const NAS_ADDRESS_DESTINATION = {
  // Deliberately alike: an official API body written out as the controller takes it, never derived from the code under test.
  zoneId: DEMO_ZONES.internal,
  trafficFilter: {
    type: 'IP_ADDRESS',
    ipAddressFilter: {
      type: 'IP_ADDRESSES',
      matchOpposite: false,
      items: [
        { type: 'IP_ADDRESS', value: '192.168.1.20' },
        { type: 'SUBNET', value: '192.168.1.64/28' },
      ],
    },
    portFilter: {
      type: 'PORTS',
      matchOpposite: false,
      items: [
        { type: 'PORT_NUMBER', value: 445 },
        { type: 'PORT_NUMBER_RANGE', start: 8000, stop: 8100 },
      ],
    },
  },
};
