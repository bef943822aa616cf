import fc from 'fast-check';
import { DEMO_DEVICES, DEMO_NETWORKS, DEMO_ZONES } from '../../src/simulator/index.js';
import type { ArgumentInfo } from '../../src/tools/core/schema-introspection.js';
import { anyText } from './fuzz-bot.js';

const networks = Object.values(DEMO_NETWORKS).flatMap((n) => [n.name, n.id]);
const zones = ['Internal', 'External', 'IoT Devices', 'DMZ', ...Object.values(DEMO_ZONES)];
const devices = Object.values(DEMO_DEVICES).flatMap((d) => [d.name, d.mac]);
const octet = fc.integer({ min: 0, max: 255 });
const ip = fc.tuple(fc.constantFrom(10, 192, 172), octet, octet, octet).map((parts) => parts.join('.'));
const subnet = fc.tuple(octet, fc.constantFrom(16, 24, 28, 33)).map(([n, bits]) => `10.${n}.0.0/${bits}`);

/** A value that looks right for an argument of this name, so cases reach the tools, not just the parser. */
function plausibleText(name: string): fc.Arbitrary<string> {
  if (/network/.test(name)) return fc.constantFrom(...networks);
  if (/zone/.test(name)) return fc.constantFrom(...zones);
  if (/device/.test(name)) return fc.constantFrom(...devices);
  if (/mac/.test(name)) return fc.constantFrom('a4:83:e7:11:22:01', '00:11:32:8a:bc:04', 'AA-BB-CC-DD-EE-FF');
  if (name === 'subnet') return subnet;
  if (/dhcp_(start|stop|dns)|_ip$|address/.test(name)) return ip;
  if (/port$/.test(name)) return fc.constantFrom('80', '443', '1000-2000', '22,80');
  if (name === 'site_id') return fc.constantFrom('default', 'default', 'default', 'Default', 'nosuchsite');
  if (name === 'schedule_time') return fc.constantFrom('08:00-17:00', '25:00', '');
  return anyText(30);
}

/** A value for one argument: mostly plausible for its kind and name, sometimes anything at all. */
export function argumentValue(arg: ArgumentInfo, junk = true): fc.Arbitrary<string | string[]> {
  let plausible: fc.Arbitrary<string | string[]>;
  switch (arg.kind) {
    case 'enum':
      plausible = fc.constantFrom(...(arg.options?.length ? arg.options : ['x']));
      break;
    case 'number':
      plausible = fc
        .integer({ min: Math.max(arg.min ?? -5, -1_000_000), max: Math.min(arg.max ?? 5000, 1_000_000) })
        .map(String);
      break;
    case 'boolean':
      plausible = fc.constantFrom('true', 'false');
      break;
    case 'array':
      plausible = fc.array(plausibleText(arg.name.replace(/s$/, '')), { minLength: 1, maxLength: 3 });
      break;
    default:
      plausible = plausibleText(arg.name);
  }
  return junk
    ? fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: anyText() })
    : plausible;
}

/** Arguments for a tool: each required one most of the time, optional ones now and then. */
export function toolArguments(
  args: readonly ArgumentInfo[],
  junk = true,
): fc.Arbitrary<[string, string | string[]][]> {
  const picked = args
    .filter((a) => a.name !== 'confirm' && a.name !== 'dry_run')
    .map((arg) =>
      fc.option(
        argumentValue(arg, junk).map((v): [string, string | string[]] => [arg.name, v]),
        // Left out 1 time in 9 when required (the form opens), half the time when optional.
        { freq: arg.required ? 8 : 1, nil: undefined },
      ),
    );
  return fc
    .tuple(...picked)
    .map((pairs) => pairs.filter((p): p is [string, string | string[]] => p !== undefined));
}
